// bench/first/first.mjs's "validator" page: walk an OME-Zarr plate written by ome-zarr-py 0.21
// (tests/fixtures/walk/ozp-0.21-v0.5-plate, 62 nodes, metadata only, no listing: members found
// from what the metadata names) and validate it against the Zarr spec and the conventions its
// nodes claim; no array is read. The import below is rewritten at bundle time to the validator
// entry the package has (bench/first/first.mjs VALIDATOR_SPECIFIER).
import { FetchStore, validateHierarchy, walk } from "zom/validate";
import { dataUrl, report } from "./first-page.js";

/** Every node's path ("" the root), sorted. */
function paths(node, path = "", out = []) {
  out.push(path);
  for (const [name, child] of Object.entries(node.members ?? {})) paths(child, path ? `${path}/${name}` : name, out);
  return out;
}

report(
  async () => {
    const tree = await walk(new FetchStore(dataUrl("/fixtures/ozp-0.21-v0.5-plate")));
    return { tree, report: validateHierarchy(tree, { specs: "auto" }) };
  },
  ({ tree, report }) => ({
    nodes: paths(tree).sort(),
    walk_errors: tree.errors.length,
    valid: report.valid,
    problems: report.problems.length,
  }),
);
