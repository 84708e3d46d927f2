"""Writes the comparison corpus under tests/compat/corpus/ (a study, not part of the test suite).

Every valid document is written by zarr-python 3.1.6 (into a MemoryStore, then copied out).
Every invalid document is one of those with ONE deliberate defect (or, for the `multi_*`
cases, three or more). Each case is a folder holding one document whose file name gives its
kind (`zarr.json`, `.zarray`, `.zgroup`), so zom's `validate` example can tell the kind.

`corpus/cases.json` lists every case: its file, its defect, its category and what the specs
say about it (`expect`):

- `valid`: the document is valid (a report of an error is a false positive);
- `invalid`: the document breaks a MUST of the spec (a tool should refuse it);
- `should_not`: the document breaks only a SHOULD / SHOULD NOT (a warning at most);
- `debatable`: the specs do not settle it (reported, never counted either way).

Cases marked `valid` include two with an unknown extension that sets `must_understand: false`:
the v3 core spec (3.1+, "Extension definition") allows that everywhere except for the data type,
chunk grid and chunk key encoding, and only discourages it for top-level keys.

Run from the repository root, after `node scripts/setup.mjs` (it creates .venv with the pinned
scripts/python-requirements.txt): `.venv/bin/python tests/compat/corpus.py` (rewrites the corpus
folder from scratch).
"""

from __future__ import annotations

import copy
import json
import shutil
import warnings
from pathlib import Path
from typing import Any, Callable

import numpy as np
import zarr
import zarr.codecs as zc
from zarr.dtype import (
    DateTime64,
    FixedLengthUTF32,
    NullTerminatedBytes,
    RawBytes,
    Structured,
    TimeDelta64,
    VariableLengthBytes,
    VariableLengthUTF8,
)
from zarr.storage import MemoryStore

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"

warnings.filterwarnings("ignore")  # zarr-python warns about its unstable v3 data types


def _documents(store: MemoryStore) -> dict[str, Any]:
    """Every metadata document in the store, decoded, by store key."""
    out = {}
    for key, buf in store._store_dict.items():
        if key.rsplit("/", 1)[-1] in ("zarr.json", ".zarray", ".zgroup"):
            out[key] = json.loads(buf.to_bytes())
    return out


def valid_documents() -> dict[str, tuple[str, Any, str]]:
    """case -> (file name, document, what it is), all written by zarr-python."""
    store = MemoryStore()
    g = zarr.open_group(store, mode="w", attributes={"title": "compat corpus", "n": 1})
    a = dict(store=store)

    def arr(name: str, **kw: Any) -> None:
        kw.setdefault("shape", (10, 10))
        kw.setdefault("chunks", (5, 5))
        zarr.create_array(name=name, **a, **kw)

    # v3, one per data type family
    arr("v3_bool", dtype="bool", fill_value=True, compressors=zc.GzipCodec(level=1))
    arr("v3_int8", dtype="int8", fill_value=-7)
    arr("v3_int16", dtype="int16", fill_value=-3, compressors=zc.ZstdCodec(level=3))
    arr("v3_uint64", dtype="uint64", fill_value=2**64 - 1)
    arr("v3_float16", dtype="float16", fill_value=1.5)
    arr("v3_float32", dtype="float32", fill_value=np.nan)
    arr("v3_float64", dtype="float64", fill_value=-np.inf, dimension_names=["y", "x"])
    arr("v3_complex64", dtype="complex64", fill_value=1 + 2j)
    arr("v3_complex128", dtype="complex128", fill_value=complex(np.nan, np.inf))
    arr("v3_string", dtype=VariableLengthUTF8(), fill_value="n/a")
    arr("v3_vlen_bytes", dtype=VariableLengthBytes())
    arr("v3_fixed_utf32", dtype=FixedLengthUTF32(length=4), fill_value="abc")
    arr("v3_null_terminated_bytes", dtype=NullTerminatedBytes(length=3), fill_value=b"ab")
    arr("v3_raw_bytes", dtype=RawBytes(length=2))
    arr("v3_structured", dtype=Structured.from_native_dtype(np.dtype([("a", "<i4"), ("b", "<f8")])))
    arr("v3_datetime64", dtype=DateTime64(unit="s", scale_factor=10), fill_value=np.datetime64("NaT"))
    arr("v3_timedelta64", dtype=TimeDelta64(unit="ms", scale_factor=1), fill_value=np.timedelta64(5, "ms"))
    # v3 codecs and layouts
    arr("v3_sharding", shape=(16, 16), chunks=(2, 2), shards=(8, 8), dtype="int16",
        compressors=zc.GzipCodec(level=5))
    arr("v3_sharding_index_start", shape=(16, 16), chunks=(4, 4), shards=(8, 8), dtype="uint8",
        serializer=zc.ShardingCodec(chunk_shape=(4, 4), index_location="start"), compressors=None)
    arr("v3_transpose_blosc", dtype="float32", filters=zc.TransposeCodec(order=(1, 0)),
        compressors=zc.BloscCodec(cname="lz4", clevel=5, shuffle="shuffle", typesize=4))
    arr("v3_crc32c", dtype="int32", compressors=[zc.ZstdCodec(level=1), zc.Crc32cCodec()])
    arr("v3_big_endian", dtype=">i4", serializer=zc.BytesCodec(endian="big"), compressors=None)
    arr("v3_chunk_key_v2", dtype="uint16", chunk_key_encoding={"name": "v2", "separator": "."})
    # v2
    arr("v2_int32_blosc", dtype="<i4", zarr_format=2, fill_value=42,
        compressors=__import__("numcodecs").Blosc(cname="lz4", clevel=5, shuffle=1))
    arr("v2_float64_zlib_F", dtype="<f8", zarr_format=2, order="F", fill_value=np.nan,
        compressors=__import__("numcodecs").Zlib(level=4))
    arr("v2_bool_no_compressor", dtype="|b1", zarr_format=2, compressors=None)
    arr("v2_string_vlen", dtype=str, zarr_format=2, fill_value="")
    arr("v2_fixed_bytes", dtype="S5", zarr_format=2, fill_value=b"hi")
    arr("v2_fixed_unicode", dtype="<U5", zarr_format=2, fill_value="abc")
    arr("v2_structured", dtype=[("a", "<i4"), ("b", "<f8")], zarr_format=2)
    arr("v2_datetime64", dtype="<M8[ns]", zarr_format=2,
        chunk_key_encoding={"name": "v2", "separator": "/"})

    docs = _documents(store)
    v2store = MemoryStore()
    zarr.open_group(store=v2store, mode="w", zarr_format=2, attributes={"title": "v2"})
    docs["v2_group/.zgroup"] = _documents(v2store)[".zgroup"]
    out: dict[str, tuple[str, Any, str]] = {}
    for key, doc in docs.items():
        name = key.rsplit("/", 1)
        file = name[-1]
        if len(name) == 1 and file != "zarr.json":
            continue  # the root .zgroup zarr-python adds above a v2 array
        case = name[0] if len(name) == 2 else "v3_group"
        what = f"written by zarr-python 3.1.6 ({case.split('_', 1)[1]})"
        out["ok_" + case] = (file, doc, what)

    # a consolidated v3 hierarchy: the root zarr.json with consolidated_metadata
    cstore = MemoryStore()
    cg = zarr.open_group(cstore, mode="w", attributes={"kind": "consolidated"})
    cg.create_array("a", shape=(4,), chunks=(2,), dtype="int8")
    sub = cg.create_group("sub", attributes={"x": 1})
    sub.create_array("b", shape=(3, 3), chunks=(3, 3), dtype="float32", fill_value=0.5)
    zarr.consolidate_metadata(cstore)
    out["ok_v3_group_consolidated"] = (
        "zarr.json", _documents(cstore)["zarr.json"], "written by zarr-python 3.1.6 (consolidated)")
    del g
    return out


# ---------------------------------------------------------------------------------------------
# defects
# ---------------------------------------------------------------------------------------------

class Mutation:
    """One or more edits to a document, with the location (loc) of each defect it makes."""

    def __init__(self, apply: Callable[[dict], None], locs: list[tuple]) -> None:
        self.apply = apply
        self.locs = locs

    def also(self, *locs: tuple) -> "Mutation":
        """The same edit, also pointed at by other locations (a defect between two keys)."""
        return Mutation(self.apply, self.locs + list(locs))


def drop(*keys: str) -> Mutation:
    def f(d: dict) -> None:
        for k in keys:
            del d[k]
    return Mutation(f, [(k,) for k in keys])


def put(**kv: Any) -> Mutation:
    return Mutation(lambda d: d.update(kv), [(k,) for k in kv])


def at(path: tuple, value: Any) -> Mutation:
    """Sets the value at a path of keys / indices."""
    def f(d: dict) -> None:
        node = d
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value
    return Mutation(f, [path])


def delete_at(path: tuple) -> Mutation:
    def f(d: dict) -> None:
        node = d
        for step in path[:-1]:
            node = node[step]
        del node[path[-1]]
    return Mutation(f, [path])


def seq(*ms: Mutation) -> Mutation:
    def f(d: dict) -> None:
        for m in ms:
            m.apply(d)
    return Mutation(f, [loc for m in ms for loc in m.locs])


def codecs(value: list) -> Mutation:
    return put(codecs=value)


BYTES_LE = {"name": "bytes", "configuration": {"endian": "little"}}
ZSTD = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
SHARD_CFG = ("codecs", 0, "configuration")

# (case, base case, mutation, defect, category, expect)
DEFECTS: list[tuple[str, str, Mutation, str, str, str]] = [
    # missing keys
    ("v3_missing_shape", "ok_v3_int16", drop("shape"), "no 'shape'", "missing key", "invalid"),
    ("v3_missing_data_type", "ok_v3_int16", drop("data_type"), "no 'data_type'", "missing key", "invalid"),
    ("v3_missing_chunk_grid", "ok_v3_int16", drop("chunk_grid"), "no 'chunk_grid'", "missing key", "invalid"),
    ("v3_missing_chunk_key_encoding", "ok_v3_int16", drop("chunk_key_encoding"),
     "no 'chunk_key_encoding'", "missing key", "invalid"),
    ("v3_missing_fill_value", "ok_v3_int16", drop("fill_value"), "no 'fill_value'", "missing key", "invalid"),
    ("v3_missing_codecs", "ok_v3_int16", drop("codecs"), "no 'codecs'", "missing key", "invalid"),
    ("v3_missing_zarr_format", "ok_v3_int16", drop("zarr_format"), "no 'zarr_format'", "missing key", "invalid"),
    ("v3_missing_node_type", "ok_v3_int16", drop("node_type"), "no 'node_type'", "missing key", "invalid"),
    ("v3_group_missing_node_type", "ok_v3_group", drop("node_type"), "group without 'node_type'",
     "missing key", "invalid"),
    ("v2_missing_chunks", "ok_v2_int32_blosc", drop("chunks"), "no 'chunks'", "missing key", "invalid"),
    ("v2_missing_dtype", "ok_v2_int32_blosc", drop("dtype"), "no 'dtype'", "missing key", "invalid"),
    ("v2_missing_compressor", "ok_v2_int32_blosc", drop("compressor"), "no 'compressor'", "missing key", "invalid"),
    ("v2_missing_fill_value", "ok_v2_int32_blosc", drop("fill_value"), "no 'fill_value'", "missing key", "invalid"),
    # wrong types
    ("v3_shape_string", "ok_v3_int16", put(shape="10,10"), "shape is a string", "wrong type", "invalid"),
    ("v3_zarr_format_string", "ok_v3_int16", put(zarr_format="3"), "zarr_format is \"3\"", "wrong type", "invalid"),
    ("v3_node_type_bad", "ok_v3_int16", put(node_type="dataset"), "node_type \"dataset\"", "wrong type", "invalid"),
    ("v3_attributes_list", "ok_v3_int16", put(attributes=[1, 2]), "attributes is a list", "wrong type", "invalid"),
    ("v3_codecs_object", "ok_v3_int16", put(codecs=BYTES_LE), "codecs is an object, not a list",
     "wrong type", "invalid"),
    ("v3_group_attributes_string", "ok_v3_group", put(attributes="x"), "group attributes is a string",
     "wrong type", "invalid"),
    ("v2_chunks_string", "ok_v2_int32_blosc", put(chunks="5,5"), "chunks is a string", "wrong type", "invalid"),
    ("v2_zarr_format_3", "ok_v2_int32_blosc", put(zarr_format=3), ".zarray with zarr_format 3",
     "wrong type", "invalid"),
    ("v2_group_zarr_format_3", "ok_v2_group", put(zarr_format=3), ".zgroup with zarr_format 3",
     "wrong type", "invalid"),
    # shape
    ("v3_shape_negative", "ok_v3_int16", put(shape=[-1, 10]), "shape [-1, 10]", "shape", "invalid"),
    ("v3_shape_float", "ok_v3_int16", put(shape=[10.5, 10]), "shape [10.5, 10]", "shape", "invalid"),
    ("v3_shape_huge", "ok_v3_int16", put(shape=[2**64, 10]), "shape [2^64, 10] (over uint64)", "shape", "invalid"),
    ("v2_shape_negative", "ok_v2_int32_blosc", put(shape=[10, -10]), "shape [10, -10]", "shape", "invalid"),
    # rank mismatches
    ("v3_chunk_shape_rank", "ok_v3_int16", at(("chunk_grid", "configuration", "chunk_shape"), [5]),
     "chunk_shape rank 1, shape rank 2", "rank mismatch", "invalid"),
    ("v2_chunks_rank", "ok_v2_int32_blosc", put(chunks=[5, 5, 5]), "chunks rank 3, shape rank 2",
     "rank mismatch", "invalid"),
    ("v3_dimension_names_length", "ok_v3_float64", put(dimension_names=["y"]),
     "1 dimension name for 2 dimensions", "rank mismatch", "invalid"),
    ("v3_dimension_names_type", "ok_v3_float64", put(dimension_names=["y", 7]),
     "a dimension name is a number", "wrong type", "invalid"),
    # chunk 0
    ("v3_chunk_zero", "ok_v3_int16", at(("chunk_grid", "configuration", "chunk_shape"), [0, 5]),
     "chunk_shape [0, 5]", "chunk 0", "invalid"),
    ("v2_chunk_zero", "ok_v2_int32_blosc", put(chunks=[5, 0]), "chunks [5, 0]", "chunk 0", "invalid"),
    # data types
    ("v3_dtype_unknown", "ok_v3_int16", put(data_type="int128"), "data_type \"int128\"", "unknown dtype", "invalid"),
    ("v2_dtype_unknown", "ok_v2_int32_blosc", put(dtype="<i16"), "dtype \"<i16\"", "unknown dtype", "invalid"),
    # fill values
    ("v3_fill_int8_range", "ok_v3_int8", put(fill_value=300), "int8 fill_value 300", "fill value", "invalid"),
    ("v3_fill_uint_negative", "ok_v3_uint64", put(fill_value=-1), "uint64 fill_value -1", "fill value", "invalid"),
    ("v3_fill_int_float", "ok_v3_int16", put(fill_value=1.5), "int16 fill_value 1.5", "fill value", "invalid"),
    ("v3_fill_null", "ok_v3_int16", put(fill_value=None), "fill_value null (v3 has no null)",
     "fill value", "invalid"),
    ("v3_fill_float_lowercase_nan", "ok_v3_float32", put(fill_value="nan"),
     "float32 fill_value \"nan\" (spec spells NaN)", "fill value encoding", "invalid"),
    ("v3_fill_hex_width", "ok_v3_float32", put(fill_value="0x7ff8000000000000"),
     "float32 fill_value with 16 hex digits (needs 8)", "fill value encoding", "invalid"),
    ("v3_fill_bool_int", "ok_v3_bool", put(fill_value=1), "bool fill_value 1", "fill value", "invalid"),
    ("v3_fill_complex_scalar", "ok_v3_complex64", put(fill_value=1.0), "complex64 fill_value 1.0 (needs a pair)",
     "fill value", "invalid"),
    ("v3_fill_bytes_bad_base64", "ok_v3_null_terminated_bytes", put(fill_value="*not base64*"),
     "null_terminated_bytes fill_value is not base64", "fill value encoding", "invalid"),
    ("v3_fill_float16_overflow", "ok_v3_float16", put(fill_value=1e10),
     "float16 fill_value 1e10 (core spec: a JSON number \"will be rounded to the nearest representable"
     " value\")", "fill value", "valid"),
    ("v2_fill_int_as_float", "ok_v2_int32_blosc", put(fill_value=1.0),
     "<i4 fill_value 1.0 (v2 spec: \"a scalar value\")", "fill value", "debatable"),
    ("v2_dtype_u1_little", "ok_v2_int32_blosc", put(dtype="<u1", fill_value=0),
     "dtype \"<u1\" (NumPy writes \"|u1\"; the spec defines \"|\" as \"not relevant\" but does not"
     " require it)", "unknown dtype", "debatable"),
    ("v3_fill_string_number", "ok_v3_string", put(fill_value=0), "string fill_value 0", "fill value", "invalid"),
    ("v2_fill_bytes_bad_base64", "ok_v2_fixed_bytes", put(fill_value="***"),
     "|S5 fill_value is not base64", "fill value encoding", "invalid"),
    ("v2_fill_int_string", "ok_v2_int32_blosc", put(fill_value="abc"), "<i4 fill_value \"abc\"",
     "fill value", "invalid"),
    ("v2_fill_float_lowercase_nan", "ok_v2_float64_zlib_F", put(fill_value="nan"),
     "<f8 fill_value \"nan\" (spec spells NaN)", "fill value encoding", "invalid"),
    # codec order
    ("v3_codec_no_serializer", "ok_v3_int16", codecs([ZSTD]), "no array->bytes codec", "codec order", "invalid"),
    ("v3_codec_two_serializers", "ok_v3_int16", codecs([BYTES_LE, BYTES_LE]), "two array->bytes codecs",
     "codec order", "invalid"),
    ("v3_codec_compressor_first", "ok_v3_int16", codecs([ZSTD, BYTES_LE]), "zstd before bytes",
     "codec order", "invalid"),
    ("v3_codec_transpose_last", "ok_v3_int16",
     codecs([BYTES_LE, {"name": "transpose", "configuration": {"order": [1, 0]}}]),
     "transpose after bytes", "codec order", "invalid"),
    ("v3_codec_missing_endian", "ok_v3_int16", codecs([{"name": "bytes"}, ZSTD]),
     "bytes without endian on int16", "codec config", "invalid"),
    # codec configurations
    ("v3_gzip_level_10", "ok_v3_bool", at(("codecs", 1, "configuration", "level"), 10), "gzip level 10",
     "codec config", "invalid"),
    ("v3_zstd_level_23", "ok_v3_int16", at(("codecs", 1, "configuration", "level"), 23), "zstd level 23",
     "codec config", "invalid"),
    ("v3_blosc_cname_bad", "ok_v3_transpose_blosc", at(("codecs", 2, "configuration", "cname"), "lz5"),
     "blosc cname \"lz5\"", "codec config", "invalid"),
    ("v3_blosc_shuffle_bad", "ok_v3_transpose_blosc", at(("codecs", 2, "configuration", "shuffle"), 1),
     "blosc shuffle 1 (v3 wants a string)", "codec config", "invalid"),
    ("v3_transpose_not_permutation", "ok_v3_transpose_blosc", at(("codecs", 0, "configuration", "order"), [0, 0]),
     "transpose order [0, 0]", "codec config", "invalid"),
    ("v3_transpose_rank", "ok_v3_transpose_blosc", at(("codecs", 0, "configuration", "order"), [2, 1, 0]),
     "transpose order of rank 3 on a 2-d array", "rank mismatch", "invalid"),
    ("v3_sharding_not_dividing", "ok_v3_sharding", at(SHARD_CFG + ("chunk_shape",), [3, 3]),
     "inner chunk [3, 3] does not divide shard [8, 8]", "codec config", "invalid"),
    ("v3_sharding_rank_mismatch", "ok_v3_sharding", at(SHARD_CFG + ("chunk_shape",), [2]),
     "inner chunk rank 1, array rank 2", "rank mismatch", "invalid"),
    ("v3_sharding_index_location_bad", "ok_v3_sharding", at(SHARD_CFG + ("index_location",), "middle"),
     "index_location \"middle\"", "codec config", "invalid"),
    ("v3_sharding_inner_gzip_level", "ok_v3_sharding", at(SHARD_CFG + ("codecs", 1, "configuration", "level"), -1),
     "inner gzip level -1", "codec config", "invalid"),
    ("v3_codec_unknown", "ok_v3_int16", codecs([BYTES_LE, {"name": "fancyzip"}]),
     "unknown codec \"fancyzip\" (must_understand absent)", "unknown extension", "invalid"),
    ("v3_codec_unknown_mu_false", "ok_v3_int16",
     codecs([BYTES_LE, {"name": "fancyzip", "must_understand": False}]),
     "unknown codec with must_understand false (core 3.1+: allowed except for data type, chunk grid, "
     "chunk key encoding)", "unknown extension", "valid"),
    # chunk key encoding
    ("v3_cke_separator_bad", "ok_v3_int16", at(("chunk_key_encoding", "configuration", "separator"), "-"),
     "chunk_key_encoding separator \"-\"", "chunk key encoding", "invalid"),
    ("v3_cke_name_unknown", "ok_v3_int16", at(("chunk_key_encoding", "name"), "fancy"),
     "chunk_key_encoding \"fancy\"", "unknown extension", "invalid"),
    ("v3_chunk_grid_unknown", "ok_v3_int16", at(("chunk_grid", "name"), "irregular"),
     "chunk_grid \"irregular\"", "unknown extension", "invalid"),
    # unknown top-level keys
    ("v3_unknown_key", "ok_v3_int16", put(foo=1), "top-level key \"foo\"", "unknown key", "invalid"),
    ("v3_unknown_key_mu_false", "ok_v3_int16", put(foo={"must_understand": False, "x": 1}),
     "top-level key \"foo\" with must_understand false (allowed, \"discouraged\")", "unknown key", "valid"),
    ("v3_group_unknown_key", "ok_v3_group", put(foo=1), "group top-level key \"foo\"", "unknown key", "invalid"),
    # v2 specifics
    ("v2_order_bad", "ok_v2_int32_blosc", put(order="X"), "order \"X\"", "v2 field", "invalid"),
    ("v2_dimension_separator_bad", "ok_v2_int32_blosc", put(dimension_separator="-"),
     "dimension_separator \"-\"", "v2 field", "invalid"),
    ("v2_compressor_id_missing", "ok_v2_int32_blosc", delete_at(("compressor", "id")), "compressor without 'id'",
     "v2 codec", "invalid"),
    ("v2_compressor_id_number", "ok_v2_int32_blosc", at(("compressor", "id"), 5), "compressor id 5",
     "v2 codec", "invalid"),
    ("v2_compressor_id_unknown", "ok_v2_int32_blosc", at(("compressor", "id"), "fancyzip"),
     "compressor id \"fancyzip\" (v2 has no codec registry)", "v2 codec", "debatable"),
    ("v2_zlib_level_10", "ok_v2_float64_zlib_F", at(("compressor", "level"), 10), "zlib level 10",
     "v2 codec", "invalid"),
    ("v2_blosc_cname_bad", "ok_v2_int32_blosc", at(("compressor", "cname"), "lz5"), "blosc cname \"lz5\"",
     "v2 codec", "invalid"),
    ("v2_object_no_codec", "ok_v2_string_vlen", put(filters=None).also(("dtype",)), "|O without an object codec",
     "v2 codec", "invalid"),
    ("v2_extra_key", "ok_v2_int32_blosc", put(foo=1), ".zarray key \"foo\" (spec: SHOULD NOT)",
     "unknown key", "should_not"),
    ("v2_group_extra_key", "ok_v2_group", put(foo=1), ".zgroup key \"foo\" (spec: MUST NOT)",
     "unknown key", "invalid"),
    # nested (consolidated metadata)
    ("v3_consolidated_bad_entry", "ok_v3_group_consolidated",
     at(("consolidated_metadata", "metadata", "a", "shape"), [-4]),
     "consolidated entry 'a' has shape [-4]", "nested", "invalid"),
]

MULTI: list[tuple[str, str, Mutation, str]] = [
    ("multi_v3_array", "ok_v3_int16",
     seq(put(shape=[-1, 10], fill_value=70000, foo=1),
         at(("codecs", 1, "configuration", "level"), 23)),
     "4 defects: shape [-1, 10]; int16 fill_value 70000; zstd level 23; top-level key \"foo\""),
    ("multi_v3_sharding", "ok_v3_sharding",
     seq(at(("chunk_grid", "configuration", "chunk_shape"), [8, 0]),
         at(SHARD_CFG + ("chunk_shape",), [3, 3]),
         at(SHARD_CFG + ("index_location",), "middle"),
         at(("chunk_key_encoding", "configuration", "separator"), "-")),
     "4 defects: chunk_shape [8, 0]; inner chunk [3, 3]; index_location \"middle\"; separator \"-\""),
    ("multi_v2_array", "ok_v2_int32_blosc",
     put(order="X", dimension_separator="-", chunks=[5], fill_value="abc"),
     "4 defects: order \"X\"; dimension_separator \"-\"; chunks rank 1 vs shape rank 2; fill_value \"abc\""),
]


def main() -> None:
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    CORPUS.mkdir()
    valid = valid_documents()
    cases = []

    def write(case: str, file: str, doc: Any, defect: str, category: str, expect: str,
              locs: list[tuple]) -> None:
        (CORPUS / case).mkdir()
        (CORPUS / case / file).write_text(json.dumps(doc, indent=2) + "\n")
        cases.append({"case": case, "file": f"{case}/{file}", "defect": defect,
                      "category": category, "expect": expect, "locs": [list(l) for l in locs]})

    for case in sorted(valid):
        file, doc, what = valid[case]
        write(case, file, doc, what, "valid", "valid", [])
    for case, base, mutate, defect, category, expect in DEFECTS + [
        (c, b, m, d, "multiple", "invalid") for c, b, m, d in MULTI
    ]:
        file, doc, _ = valid[base]
        doc = copy.deepcopy(doc)
        mutate.apply(doc)
        write(case, file, doc, defect, category, expect, mutate.locs)
    (CORPUS / "cases.json").write_text(json.dumps(cases, indent=1) + "\n")
    print(f"{len(cases)} cases written to {CORPUS}")


if __name__ == "__main__":
    main()
