// Builds a small GGUF v3 fixture: header + metadata bytes from @huggingface/gguf's serializeGgufMetadata (the
// reference serializer), tensor infos appended per docs/gguf.md, then re-read with @huggingface/gguf's gguf()
// parser, whose tensor offsets are written to the expected JSON.
import { serializeGgufMetadata, gguf, GGUFValueType } from "@huggingface/gguf";
import fs from "node:fs";
const out = process.argv[2];
const alignment = 64;
const tensors = [
  { name: "token_embd.weight", shape: [64n, 4n], dtype: 1, bytes: 64 * 4 * 2 },      // F16
  { name: "blk.0.attn_q.weight", shape: [64n, 2n], dtype: 8, bytes: 2 * 2 * 34 },     // Q8_0
  { name: "blk.0.ffn_up_exps.weight", shape: [256n, 1n, 2n], dtype: 12, bytes: 2 * 144 }, // Q4_K
  { name: "output_norm.weight", shape: [64n], dtype: 0, bytes: 64 * 4 },              // F32
];
const meta = {
  version: { value: 3 }, tensor_count: { value: BigInt(tensors.length) }, kv_count: { value: 3n },
  "general.architecture": { value: "llama", type: GGUFValueType.STRING },
  "general.alignment": { value: alignment, type: GGUFValueType.UINT32 },
  "tokenizer.ggml.tokens": { value: ["<s>", "</s>", "hi"], type: GGUFValueType.ARRAY, subType: GGUFValueType.STRING },
};
const head = serializeGgufMetadata(meta, { alignment: 1 });
const parts = [Buffer.from(head)];
let rel = 0n;
const pad = (x, a) => (x + a - 1n) / a * a;
for (const t of tensors) {
  const name = Buffer.from(t.name, "utf8");
  const b = Buffer.alloc(8 + name.length + 4 + 8 * t.shape.length + 4 + 8);
  let o = 0;
  b.writeBigUInt64LE(BigInt(name.length), o); o += 8; name.copy(b, o); o += name.length;
  b.writeUInt32LE(t.shape.length, o); o += 4;
  for (const d of t.shape) { b.writeBigUInt64LE(d, o); o += 8; }
  b.writeUInt32LE(t.dtype, o); o += 4;
  b.writeBigUInt64LE(rel, o);
  t.rel = rel; rel = pad(rel + BigInt(t.bytes), BigInt(alignment));
  parts.push(b);
}
let len = parts.reduce((s, p) => s + p.length, 0);
const dataStart = Number(pad(BigInt(len), BigInt(alignment)));
parts.push(Buffer.alloc(dataStart - len));
const data = Buffer.alloc(Number(rel));
for (let i = 0; i < data.length; i++) data[i] = (i * 31 + 7) & 0xff;
parts.push(data);
fs.writeFileSync(out, Buffer.concat(parts));
const parsed = await gguf(out, { allowLocalFile: true });
const expected = parsed.tensorInfos.map(t => ({
  name: t.name, dtype: t.dtype, shape: t.shape.map(Number),
  offset: Number(parsed.tensorDataOffset + t.offset),
}));
fs.writeFileSync(out + ".expected.json", JSON.stringify({ tensorDataOffset: Number(parsed.tensorDataOffset), tensors: expected }, null, 1) + "\n");
console.log(JSON.stringify(parsed.metadata, (k, v) => typeof v === "bigint" ? Number(v) : v), parsed.tensorDataOffset);
