// The NGFF specification's own test suites (ome/ngff-spec, branches 0.4 and 0.5,
// tests/*_suite.json: a case is a group's attributes and whether they are valid) run through
// zom: each case's attributes on a group inside a hierarchy built around it (an array at each
// dataset path with one dimension per axis and, in 0.5, dimension_names equal to the axes'
// names; a label image inside the labels group of an image; a well group at each path a plate
// lists and an image in it; an image at each path a well lists), checked with the built-in
// spec of the case's version. strict_ suites are checked in strict mode: a warning (a SHOULD)
// makes the case invalid there.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fromDocuments, validateHierarchy } from "zom/validate";

/**
 * Cases whose expected verdict contradicts the spec text, which zom follows, by suite file and
 * the case's `formerly` (or description), with why.
 */
const FIELD_COUNT =
  "the plate has no field_count, which the text says a plate SHOULD contain (a warning in strict mode; the suite's strict schema does not ask for it)";
const ROW_THEN_COLUMN =
  "the well path is the column's name, '/', the row's: the 0.4 text says the path MUST consist of a name in the rows list, '/', and a name from the columns list, in that order, and that rowIndex, columnIndex and path MUST refer to the same row/column pair (the 0.5 suite has these cases the right way round, and well_path_has_column_before_row as invalid)";
export const DISAGREEMENTS = {
  "0.4/image_suite.json valid/mismatch_axes_units.json":
    "2 scale entries for 3 axes: the 0.4 text says the length of the scale array MUST be the same as the length of axes",
  "0.4/plate_suite.json plate/minimal_no_acquisitions": ROW_THEN_COLUMN,
  "0.4/plate_suite.json plate/minimal_acquisitions": ROW_THEN_COLUMN,
  "0.4/plate_suite.json plate/non_alphanumeric_row": ROW_THEN_COLUMN,
  "0.4/strict_plate_suite.json plate/strict_no_acquisitions": FIELD_COUNT,
  "0.4/strict_plate_suite.json plate/strict_acquisitions": FIELD_COUNT,
  "0.5/strict_plate_suite.json plate/strict_no_acquisitions": FIELD_COUNT,
  "0.5/strict_plate_suite.json plate/strict_acquisitions": FIELD_COUNT,
};

const encode = (o) => new TextEncoder().encode(JSON.stringify(o));

/** The documents of a hierarchy around `attrs`, a case of a `kind` suite ("image", "label", "plate", "well"). */
export function hierarchyOf(version, kind, attrs) {
  const docs = new Map();
  const v3 = version !== "0.4";
  const group = (path, attributes) => {
    const p = path ? `${path}/` : "";
    if (v3) docs.set(`${p}zarr.json`, encode({ zarr_format: 3, node_type: "group", attributes }));
    else {
      docs.set(`${p}.zgroup`, encode({ zarr_format: 2 }));
      docs.set(`${p}.zattrs`, encode(attributes));
    }
  };
  const parents = (path) => {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const p = parts.slice(0, i).join("/");
      if (!docs.has(v3 ? `${p}/zarr.json` : `${p}/.zgroup`)) group(p, {});
    }
  };
  const array = (path, rank, dtype, names) => {
    parents(path);
    const shape = Array(rank).fill(4);
    if (v3) {
      const meta = {
        zarr_format: 3,
        node_type: "array",
        shape,
        data_type: dtype,
        chunk_grid: { name: "regular", configuration: { chunk_shape: shape } },
      };
      Object.assign(meta, {
        chunk_key_encoding: { name: "default" },
        fill_value: 0,
        codecs: [{ name: "bytes", configuration: { endian: "little" } }],
        attributes: {},
        dimension_names: names,
      });
      docs.set(`${path}/zarr.json`, encode(meta));
    } else
      docs.set(
        `${path}/.zarray`,
        encode({
          zarr_format: 2,
          shape,
          chunks: shape,
          dtype: dtype === "uint16" ? "<u2" : "<i4",
          compressor: null,
          fill_value: 0,
          order: "C",
          filters: null,
        }),
      );
  };
  const ome = (a) => (v3 ? (a.ome ?? {}) : a);
  const image = (path, attributes, dtype = "uint16") => {
    if (path) parents(path);
    group(path, attributes);
    for (const ms of ome(attributes).multiscales ?? []) {
      const axes = Array.isArray(ms?.axes) ? ms.axes : null;
      const names = axes?.every((a) => typeof a?.name === "string") ? axes.map((a) => a.name) : null;
      for (const ds of ms?.datasets ?? []) {
        if (typeof ds?.path === "string" && ds.path) array([path, ds.path].filter(Boolean).join("/"), axes?.length ?? 2, dtype, names);
      }
    }
  };
  const minimalImage = () => {
    const ms = {
      name: "field",
      type: "gaussian",
      metadata: {},
      axes: [
        { name: "y", type: "space" },
        { name: "x", type: "space" },
      ],
      datasets: [{ path: "0", coordinateTransformations: [{ type: "scale", scale: [1, 1] }] }],
    };
    return v3 ? { ome: { version, multiscales: [ms] } } : { multiscales: [{ version, ...ms }] };
  };
  if (kind === "image") image("", attrs);
  else if (kind === "label") {
    // A label image is an image: the case's attributes over a minimal image's.
    const base = minimalImage();
    image("", base);
    group("labels", v3 ? { ome: { version, labels: ["l"] } } : { labels: ["l"] });
    image("labels/l", v3 ? { ome: { ...base.ome, ...(attrs.ome ?? {}) } } : { ...base, ...attrs }, "int32");
  } else if (kind === "plate") {
    group("", attrs);
    for (const w of ome(attrs).plate?.wells ?? []) {
      if (typeof w?.path !== "string") continue;
      parents(w.path);
      group(w.path, v3 ? { ome: { version, well: { images: [{ path: "0" }] } } } : { well: { version, images: [{ path: "0" }] } });
      image(`${w.path}/0`, minimalImage());
    }
  } else if (kind === "well") {
    group("", attrs);
    for (const im of ome(attrs).well?.images ?? []) if (typeof im?.path === "string") image(im.path, minimalImage());
  }
  return docs;
}

/**
 * Runs the suites under `dir` (`dir/<version>/*_suite.json`): every case's verdict next to
 * the expected one, with the problems that made it invalid.
 */
export function runSuites(dir) {
  const results = [];
  for (const version of readdirSync(dir).sort()) {
    for (const file of readdirSync(join(dir, version))
      .filter((f) => f.endsWith("_suite.json"))
      .sort()) {
      const suite = JSON.parse(readFileSync(join(dir, version, file), "utf8"));
      const strict = file.startsWith("strict_");
      const kind = file.replace("strict_", "").replace("_suite.json", "");
      for (const t of suite.tests) {
        const id = `${version}/${file} ${t.formerly ?? t.description}`;
        let problems;
        try {
          const report = validateHierarchy(fromDocuments(hierarchyOf(version, kind, t.data)), { specs: `ome-zarr-${version}`, strict });
          problems = report.problems.filter((p) => p.spec !== undefined && (strict || p.severity === "error"));
        } catch (e) {
          problems = [{ path: "", message: `not a hierarchy: ${e.message}` }];
        }
        results.push({ id, expected: t.valid, valid: problems.length === 0, problems: problems.map((p) => `${p.path}: ${p.message}`) });
      }
    }
  }
  return results;
}
