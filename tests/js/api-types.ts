// Compile-time test (tsc --strict --noEmit -p tests/js/tsconfig.json; never run): the published
// declarations of "zom" and "zom/manual" type the uses a TypeScript caller writes.
import {
  type ArrayZomV3,
  type Difference,
  type GroupZomV2,
  type GroupZomV3,
  isZomError,
  loadCodecParts,
  type Problem,
  type ProblemKind,
  type Report,
  version,
  type Zom,
  type ZomError,
} from "zom";
import { type InitSource, init } from "zom/manual";
import {
  diff,
  flatten,
  fromDocuments,
  jsonSchema,
  like,
  parseJson,
  stringify,
  toDocuments,
  toV3,
  unflatten,
  validateDocument,
  validateHierarchy,
} from "zom/validate";

export async function typedUses(bytes: Uint8Array): Promise<string[]> {
  const source: InitSource = bytes;
  await init(source);
  await init(new URL("https://example.invalid/zom_wasm_bg.wasm"));
  await loadCodecParts(["lzma", "pcodec"]);
  const all: Promise<void> = loadCodecParts();
  await all;

  const zom: Zom = fromDocuments(new Map([["zarr.json", bytes]]));
  const viaObject: Zom = fromDocuments({ "zarr.json": '{"zarr_format": 3, "node_type": "group"}' });
  const docs: Map<string, Uint8Array> = toDocuments(zom, { consolidated: true });

  const report: Report = validateDocument(bytes, { key: "zarr.json", strict: true, extensions: true });
  const kinds: ProblemKind[] = report.problems.map((p: Problem) => p.kind);
  const handled: Report = validateHierarchy(zom, {
    extensionHandlers: { "example.ext": (_ext, path, loc) => [{ path, loc, kind: "invalid_value", message: "no", severity: "error" }] },
  });

  if (zom.zarr_format === 3 && zom.node_type === "group") {
    const group: GroupZomV3 = zom;
    const member = group.members?.a;
    if (member?.node_type === "array") {
      const array: ArrayZomV3 = member;
      const dims: number = array.shape.length;
      kinds.length = dims;
    }
  }
  if (zom.zarr_format === 2 && "members" in zom) {
    const group: GroupZomV2 = zom;
    const converted = toV3(group);
    const v3: Zom = converted.zom;
    kinds.push(...converted.problems.map((p) => p.kind));
    unflatten(flatten(v3, { form: "pydantic" }), { form: "pydantic" });
  }

  const same: boolean = like(zom, viaObject, { exclude: ["attributes"] });
  const differences: Difference[] = diff(zom, viaObject, { include: ["shape"] });
  const schemaVersion: unknown = jsonSchema(3).$schema;
  const parsed = parseJson(stringify(zom, 2));

  try {
    fromDocuments(new Map());
  } catch (e) {
    if (isZomError(e)) {
      const code: ZomError["code"] = e.code;
      return [
        code,
        e.path ?? "",
        e.key ?? "",
        version(),
        String(same),
        String(differences.length),
        String(schemaVersion),
        typeof parsed,
        String(docs.size),
        String(handled.valid),
      ];
    }
  }
  return [];
}
