// A small QR code encoder (ISO/IEC 18004) for the table cards' links: byte mode, error
// correction level M, versions 1 to 10 (up to 213 bytes: a link with its secret is ~110).
// No dependency: the table cards print without anything fetched. Checked module by module
// against a reference encoder by tests/test_club_qr.py.

// Level M: [error correction codewords per block, [blocks, data codewords each], ...] per version.
const BLOCKS = [null,
  [10, [1, 16]], [16, [1, 28]], [26, [1, 44]], [18, [2, 32]], [24, [2, 43]],
  [16, [4, 27]], [18, [4, 31]], [22, [2, 38], [2, 39]], [22, [3, 36], [2, 37]], [26, [4, 43], [1, 44]]];
const ALIGNMENT = [null, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]];
const LEVEL_M = 0; // the format bits of level M

// GF(256) with the polynomial x^8 + x^4 + x^3 + x^2 + 1
const EXP = new Array(512), LOG = new Array(256);
for (let i = 0, x = 1; i < 255; i++) { EXP[i] = x; LOG[x] = i; x <<= 1; if (x & 256) x ^= 0x11d; }
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255];
const mul = (a, b) => (a && b ? EXP[LOG[a] + LOG[b]] : 0);

function generator(degree) {
  let poly = [1];
  for (let i = 0; i < degree; i++) {
    const next = new Array(poly.length + 1).fill(0);
    for (let j = 0; j < poly.length; j++) { next[j] ^= poly[j]; next[j + 1] ^= mul(poly[j], EXP[i]); }
    poly = next;
  }
  return poly;
}

function remainder(data, degree) {
  const gen = generator(degree), out = [...data, ...new Array(degree).fill(0)];
  for (let i = 0; i < data.length; i++) {
    const factor = out[i];
    if (factor) for (let j = 1; j < gen.length; j++) out[i + j] ^= mul(gen[j], factor);
  }
  return out.slice(data.length);
}

const dataCapacity = (version) => BLOCKS[version].slice(1).reduce((sum, [count, size]) => sum + count * size, 0);

/** The codewords of ``bytes`` at ``version``: data and error correction, interleaved. */
function codewords(bytes, version) {
  const bits = [];
  const push = (value, length) => { for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
  push(0b0100, 4);
  push(bytes.length, version < 10 ? 8 : 16);
  for (const byte of bytes) push(byte, 8);
  const capacity = dataCapacity(version) * 8;
  push(0, Math.min(4, capacity - bits.length));
  while (bits.length % 8) bits.push(0);
  const data = [];
  for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((v, b) => (v << 1) | b, 0));
  for (let pad = 0xec; data.length < capacity / 8; pad ^= 0xec ^ 0x11) data.push(pad);
  const [ecLength, ...groups] = BLOCKS[version];
  const blocks = [];
  let at = 0;
  for (const [count, size] of groups) for (let i = 0; i < count; i++) { blocks.push(data.slice(at, at + size)); at += size; }
  const ec = blocks.map((block) => remainder(block, ecLength));
  const out = [];
  for (let i = 0; i < Math.max(...blocks.map((b) => b.length)); i++) for (const block of blocks) if (i < block.length) out.push(block[i]);
  for (let i = 0; i < ecLength; i++) for (const block of ec) out.push(block[i]);
  return out;
}

const MASKS = [
  (r, c) => (r + c) % 2 === 0, (r) => r % 2 === 0, (r, c) => c % 3 === 0, (r, c) => (r + c) % 3 === 0,
  (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0, (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0, (r, c) => (((r + c) % 2) + ((r * c) % 3)) % 2 === 0];

function build(version, words, mask) {
  const size = version * 4 + 17;
  const dark = Array.from({ length: size }, () => new Array(size).fill(false));
  const fixed = Array.from({ length: size }, () => new Array(size).fill(false));
  const set = (r, c, value) => { dark[r][c] = value; fixed[r][c] = true; };
  for (const [fr, fc] of [[0, 0], [0, size - 7], [size - 7, 0]]) {  // finders with their separators
    for (let r = -1; r <= 7; r++) for (let c = -1; c <= 7; c++) {
      const rr = fr + r, cc = fc + c;
      if (rr < 0 || cc < 0 || rr >= size || cc >= size) continue;
      const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
      set(rr, cc, ring !== 2 && ring !== 4);
    }
  }
  for (let i = 8; i < size - 8; i++) { set(6, i, i % 2 === 0); set(i, 6, i % 2 === 0); }
  const centres = ALIGNMENT[version];
  const last = centres.length - 1;
  centres.forEach((r, i) => centres.forEach((c, j) => {
    if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;  // a finder's corner
    for (let dr = -2; dr <= 2; dr++) for (let dc = -2; dc <= 2; dc++) set(r + dr, c + dc, Math.max(Math.abs(dr), Math.abs(dc)) !== 1);
  }));
  const format = (bits) => {
    for (let i = 0; i <= 5; i++) set(i, 8, (bits >>> i) & 1);
    set(7, 8, (bits >>> 6) & 1); set(8, 8, (bits >>> 7) & 1); set(8, 7, (bits >>> 8) & 1);
    for (let i = 9; i < 15; i++) set(8, 14 - i, (bits >>> i) & 1);
    for (let i = 0; i < 8; i++) set(8, size - 1 - i, (bits >>> i) & 1);
    for (let i = 8; i < 15; i++) set(size - 15 + i, 8, (bits >>> i) & 1);
    set(size - 8, 8, true);
  };
  format(0);  // reserved now, written below
  if (version >= 7) {
    let rem = version;
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
    const bits = (version << 12) | rem;
    for (let i = 0; i < 18; i++) {
      const bit = ((bits >>> i) & 1) === 1, a = size - 11 + (i % 3), b = Math.floor(i / 3);
      set(b, a, bit); set(a, b, bit);
    }
  }
  let i = 0;
  const total = words.length * 8;
  for (let right = size - 1; right >= 1; right -= 2) {
    if (right === 6) right = 5;
    const upward = ((right + 1) & 2) === 0;
    for (let vert = 0; vert < size; vert++) {
      const r = upward ? size - 1 - vert : vert;
      for (let j = 0; j < 2; j++) {
        const c = right - j;
        if (fixed[r][c]) continue;
        // past the codewords: the remainder bits, light before the mask
        const bit = i < total ? ((words[i >>> 3] >>> (7 - (i & 7))) & 1) === 1 : false;
        i++;
        dark[r][c] = bit !== MASKS[mask](r, c);
      }
    }
  }
  const data = (LEVEL_M << 3) | mask;
  let rem = data;
  for (let k = 0; k < 10; k++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
  format(((data << 10) | rem) ^ 0x5412);
  for (const row of dark) for (let c = 0; c < size; c++) row[c] = !!row[c];
  return dark;
}

function penalty(dark) {
  const size = dark.length;
  let score = 0;
  const lines = [...dark, ...dark.map((_, c) => dark.map((row) => row[c]))];
  for (const line of lines) {
    let run = 1;
    for (let i = 1; i <= size; i++) {
      if (i < size && line[i] === line[i - 1]) run++;
      else { if (run >= 5) score += run - 2; run = 1; }
    }
    const text = line.map((d) => (d ? "1" : "0")).join("");
    for (const pattern of ["10111010000", "00001011101"]) for (let at = text.indexOf(pattern); at >= 0; at = text.indexOf(pattern, at + 1)) score += 40;
  }
  for (let r = 0; r < size - 1; r++) for (let c = 0; c < size - 1; c++) {
    const v = dark[r][c];
    if (v === dark[r][c + 1] && v === dark[r + 1][c] && v === dark[r + 1][c + 1]) score += 3;
  }
  const darkCount = dark.reduce((n, row) => n + row.filter(Boolean).length, 0);
  score += Math.floor(Math.abs(darkCount * 20 - size * size * 10) / (size * size)) * 10;
  return score;
}

/** The QR code of ``text`` (UTF-8) as rows of booleans (true: dark), level M, the smallest
 *  version that holds it, the mask with the least penalty (or ``mask`` if given). */
export function qrMatrix(text, mask = null) {
  const bytes = [...new TextEncoder().encode(text)];
  let version = 1;
  while (version <= 10 && dataCapacity(version) < bytes.length + (version < 10 ? 2 : 3)) version++;
  if (version > 10) throw new Error("too long for a QR code of version 10");
  const words = codewords(bytes, version);
  if (mask !== null) return build(version, words, mask);
  let best = null, bestScore = Infinity;
  for (let m = 0; m < 8; m++) {
    const matrix = build(version, words, m), score = penalty(matrix);
    if (score < bestScore) { best = matrix; bestScore = score; }
  }
  return best;
}

/** The QR code of ``text`` as an SVG element's markup, with the quiet zone of four modules. */
export function qrSvg(text, label = "") {
  const matrix = qrMatrix(text), size = matrix.length + 8;
  let path = "";
  matrix.forEach((row, r) => row.forEach((dark, c) => { if (dark) path += `M${c + 4} ${r + 4}h1v1h-1z`; }));
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" role="img" aria-label="${label.replace(/"/g, "&quot;")}" shape-rendering="crispEdges"><rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
}
