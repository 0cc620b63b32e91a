/**
 * A walk over an ONNX file's protobuf wire format, before it is decoded: decoding makes one
 * object per repeated item, so a few megabytes of empty nodes or one-byte int64s (each a Long)
 * become gigabytes of heap. The walk counts the items a decode would make, and finds what an
 * imported model may not have (subgraphs, local functions, tensors whose data is in another
 * file), reading nothing but varints and lengths. Field numbers are those of onnx.proto.
 */

/**
 * The most repeated items (nodes, attributes, tensors, int64s, strings) a file may hold: a tree
 * ensemble has about eight per tree node, so this takes forests of some two million nodes (a
 * decode of about a gigabyte of heap in the worker), and refuses a 64 MB file of one-byte items.
 */
export const MAX_DECODED_ITEMS = 16_000_000;
/** The most nodes a graph may have (a tree ensemble is one node; an MLP a few dozen). */
export const MAX_NODES = 20_000;

export interface WireScan {
  nodes: number;
  items: number;
  /** Why the file cannot be imported (undefined: it may be decoded). */
  problem?: string;
}

const MODEL = { graph: 7, functions: 25 };
const GRAPH = { node: 1, initializer: 5, input: 11, output: 12, valueInfo: 13, sparseInitializer: 15 };
const NODE = { attribute: 5 };
const ATTRIBUTE = { graph: 6, ints: 8, strings: 9, tensors: 10, graphs: 11, tensor: 5 };
const TENSOR = { stringData: 6, int64Data: 7, uint64Data: 11, externalData: 13, dataLocation: 14 };

class Malformed extends Error {}

/** The fields of a message in bytes[start, end): number, wire type, and for length-delimited ones their bytes. */
function* fields(bytes: Uint8Array, start: number, end: number): Generator<{ field: number; wire: number; from: number; to: number }> {
  let at = start;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (at >= end) throw new Malformed('a varint runs past the end');
      const b = bytes[at++];
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
    throw new Malformed('a varint longer than 10 bytes');
  };
  while (at < end) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    const from = at;
    if (wire === 0) varint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = varint();
      at += length;
      yield { field, wire, from: at - length, to: at };
      if (at > end) throw new Malformed('a field runs past the end');
      continue;
    } else throw new Malformed(`wire type ${wire}`);
    if (at > end) throw new Malformed('a field runs past the end');
    yield { field, wire, from, to: at };
  }
}

/** Varints in a packed run: one per byte that ends one. */
function packedVarints(bytes: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (bytes[i] < 0x80) n++;
  return n;
}

/** Count what decoding `bytes` as a ModelProto would make, and find subgraphs and functions. */
export function scanOnnxWire(bytes: Uint8Array): WireScan {
  const scan: WireScan = { nodes: 0, items: 0 };
  try {
    for (const f of fields(bytes, 0, bytes.length)) {
      if (f.field === MODEL.functions && f.wire === 2) return { ...scan, problem: 'file: the model defines local functions; only the operators of ai.onnx and ai.onnx.ml are run here' };
      if (f.field === MODEL.graph && f.wire === 2) scanGraph(bytes, f.from, f.to, scan);
      if (scan.problem) return scan;
    }
  } catch (e) {
    if (e instanceof Malformed) return { ...scan, problem: `file: not an ONNX model (${e.message})` };
    throw e;
  }
  if (scan.nodes > MAX_NODES) return { ...scan, problem: `file: the graph has ${scan.nodes} nodes; at most ${MAX_NODES} are imported` };
  if (scan.items > MAX_DECODED_ITEMS)
    return { ...scan, problem: `file: the model holds ${scan.items} repeated items (nodes, attributes, integers, strings); at most ${MAX_DECODED_ITEMS} are imported` };
  return scan;
}

function scanGraph(bytes: Uint8Array, start: number, end: number, scan: WireScan): void {
  for (const f of fields(bytes, start, end)) {
    if (f.wire !== 2) continue;
    if (f.field === GRAPH.node) {
      scan.nodes++;
      scan.items++;
      scanNode(bytes, f.from, f.to, scan);
    } else if (f.field === GRAPH.initializer || f.field === GRAPH.sparseInitializer) {
      scan.items++;
      scanTensor(bytes, f.from, f.to, scan);
    } else if (f.field === GRAPH.input || f.field === GRAPH.output || f.field === GRAPH.valueInfo) scan.items++;
    if (scan.problem || scan.items > MAX_DECODED_ITEMS) return;
  }
}

function scanNode(bytes: Uint8Array, start: number, end: number, scan: WireScan): void {
  for (const f of fields(bytes, start, end)) {
    if (f.field !== NODE.attribute || f.wire !== 2) continue;
    scan.items++;
    for (const a of fields(bytes, f.from, f.to)) {
      if (a.field === ATTRIBUTE.graph || a.field === ATTRIBUTE.graphs) {
        scan.problem = 'file: a node has a subgraph (If, Loop, Scan); only models without control flow are imported';
        return;
      }
      if (a.field === ATTRIBUTE.ints) scan.items += a.wire === 2 ? packedVarints(bytes, a.from, a.to) : 1;
      else if (a.field === ATTRIBUTE.strings) scan.items++;
      else if ((a.field === ATTRIBUTE.tensors || a.field === ATTRIBUTE.tensor) && a.wire === 2) {
        scan.items++;
        scanTensor(bytes, a.from, a.to, scan);
      }
    }
  }
}

function scanTensor(bytes: Uint8Array, start: number, end: number, scan: WireScan): void {
  for (const f of fields(bytes, start, end)) {
    // data kept in another file: onnxruntime would read it from the server's disk
    if (f.field === TENSOR.externalData || f.field === TENSOR.dataLocation) {
      scan.problem = 'file: a tensor keeps its data in an external file; only self-contained models are imported';
      return;
    }
    if (f.field === TENSOR.int64Data || f.field === TENSOR.uint64Data) scan.items += f.wire === 2 ? packedVarints(bytes, f.from, f.to) : 1;
    else if (f.field === TENSOR.stringData) scan.items++;
  }
}
