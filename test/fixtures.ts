import { crc32, deflateRawSync } from 'node:zlib';
/** Structures that several test files post. */

/** Ethanol with 3D coordinates (heavy atoms only). */
export const ETHANOL_3D = `ethanol conformer
  hand-made 3D

  3  2  0  0  0  0  0  0  0  0999 V2000
   -0.8883    0.1670   -0.0273 C   0  0  0  0  0  0  0  0  0  0  0  0
    0.4658   -0.5116    0.0681 C   0  0  0  0  0  0  0  0  0  0  0  0
    1.4311    0.3640   -0.4731 O   0  0  0  0  0  0  0  0  0  0  0  0
  1  2  1  0
  2  3  1  0
M  END
`;

/** A deterministic pseudo-random source (mulberry32), so every run uploads the same table. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A valid acyclic molecule of 6-25 heavy atoms as SMILES: a chain of C, N, O, S with methyl,
 * hydroxy, amino, fluoro or chloro branches on carbons (valences stay within limits).
 */
function randomSmiles(next: () => number): string {
  const atoms = ['C', 'C', 'C', 'C', 'N', 'O', 'S'];
  const branches = ['(C)', '(O)', '(N)', '(F)', '(Cl)', '(CC)', '(C(C)C)'];
  const length = 6 + Math.floor(next() * 20);
  let smiles = 'C';
  for (let i = 1; i < length; i++) {
    const atom = atoms[Math.floor(next() * atoms.length)];
    smiles += atom;
    if (atom === 'C' && next() < 0.35) smiles += branches[Math.floor(next() * branches.length)];
  }
  return smiles;
}

/** A CSV of `rows` generated structures (header: SMILES,logP_estimate,activity,comment) with a numeric, a nominal and a text column. */
export function syntheticCsv(rows: number, seed = 20261122): string {
  const next = random(seed);
  const lines = ['SMILES,logP_estimate,activity,comment'];
  for (let i = 0; i < rows; i++) {
    const smiles = randomSmiles(next);
    lines.push(`${smiles},${(next() * 8 - 2).toFixed(3)},${next() < 0.4 ? 'active' : 'inactive'},batch ${i % 977}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A zip archive of deflated entries, as spreadsheet programs write them (sizes and CRC-32 true). */
export function zipArchive(entries: [string, string][]): Uint8Array {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const [entry, text] of entries) {
    const name = Buffer.from(entry);
    const raw = Buffer.from(text);
    const data = deflateRawSync(raw);
    const header = (signature: number, size: number) => {
      const h = Buffer.alloc(size);
      h.writeUInt32LE(signature, 0);
      return h;
    };
    const local = header(0x04034b50, 30);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(raw), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = header(0x02014b50, 46);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(raw), 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    parts.push(local, name, data);
    directory.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const size = directory.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, ...directory, end]));
}
