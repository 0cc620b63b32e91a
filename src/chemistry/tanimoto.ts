/** Tanimoto similarity of two packed fingerprints. */
export function tanimoto(a: Uint8Array, b: Uint8Array): number {
  let both = 0;
  let either = 0;
  for (let i = 0; i < a.length; i++) {
    both += POPCOUNT[a[i] & b[i]];
    either += POPCOUNT[a[i] | b[i]];
  }
  return either === 0 ? 0 : both / either;
}

const POPCOUNT = Uint8Array.from({ length: 256 }, (_, i) => {
  let n = 0;
  for (let v = i; v; v >>= 1) n += v & 1;
  return n;
});
