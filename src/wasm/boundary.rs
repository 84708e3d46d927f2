//! The JS boundary's vocabulary as data: every options object the bindings read and every
//! result object they build whose fields TypeScript names, field by field with its TypeScript
//! type. `options.rs` reads options only through these fields, `plain.rs` writes the results'
//! names from them, and `examples/gen_boundary.rs` prints them (with [`crate::ErrorCode`] and
//! [`crate::limits::Limit`]) as ts/generated/boundary.ts, which ts/ imports: one definition
//! for both sides, checked by tsc and by tests/boundary_ts.rs.
//!
//! Plain data with no dependency on the crate or on wasm-bindgen, so that the generator (a
//! native program) includes this very file.

/// One property of an options or result object.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The property's name in JS.
    pub name: &'static str,
    /// Its TypeScript type (names from ts/generated/boundary.ts, or TypeScript's lib).
    pub ts: &'static str,
    /// Whether it may be absent (`name?:` in TypeScript).
    pub optional: bool,
    /// What it is, for the TypeScript doc comment.
    pub doc: &'static str,
}

/// An object crossing the boundary: its TypeScript interface name and its fields.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// The interface's name in ts/generated/boundary.ts.
    pub name: &'static str,
    /// What it is.
    pub doc: &'static str,
    /// Its fields, in order.
    pub fields: &'static [Field],
}

/// The names of `shape`'s fields, for a `const` item: evaluated at compile time, so that only
/// the names reach the module, not the types and docs. A shape of another length does not
/// compile.
pub const fn names<const N: usize>(shape: &Shape) -> [&'static str; N] {
    assert!(shape.fields.len() == N, "a shape of another length");
    let mut out = [""; N];
    let mut at = 0;
    while at < N {
        out[at] = shape.fields[at].name;
        at += 1;
    }
    out
}

const fn opt(name: &'static str, ts: &'static str, doc: &'static str) -> Field {
    Field {
        name,
        ts,
        optional: true,
        doc,
    }
}

const fn req(name: &'static str, ts: &'static str, doc: &'static str) -> Field {
    Field {
        name,
        ts,
        optional: false,
        doc,
    }
}

// Options: fields shared by several options objects.

/// The operation's AbortSignal.
pub const SIGNAL: Field = opt("signal", "AbortSignal", "The operation's AbortSignal.");
/// The limits of one call, over the module's defaults (or an array's).
pub const LIMITS: Field = opt(
    "limits",
    "Partial<Limits> | null",
    "Limits for this call, over the module's defaults (or those an array was opened with).",
);
/// Extension names the caller implements (registerExtension).
pub const EXTENSIONS: Field = opt(
    "extensions",
    "string[]",
    "Extension names the caller implements (those given to registerExtension).",
);
/// Codec names the caller implements (registerCodec).
pub const CODECS: Field = opt(
    "codecs",
    "string[]",
    "Codec names the caller implements (those given to registerCodec).",
);
/// What a node is expected to be.
pub const KIND: Field = opt(
    "kind",
    "\"array\" | \"group\" | null",
    "What the node is expected to be: only its documents are probed.",
);
/// The expected Zarr format.
pub const FORMAT: Field = opt(
    "format",
    "2 | 3 | null",
    "The node's expected Zarr format: only its documents are probed.",
);

/// `openNode` and `DeferredGroup.open`.
pub const OPEN_OPTIONS: Shape = Shape {
    name: "RawOpenOptions",
    doc: "Options of openNode and DeferredGroup.open (src/wasm/hierarchy.rs).",
    fields: &[KIND, FORMAT, SIGNAL, LIMITS, EXTENSIONS, CODECS],
};

/// How deep a walk goes.
pub const DEPTH: Field = opt(
    "depth",
    "number | null",
    "How many levels below the start node (absent: all).",
);
/// How many requests a walk makes at once.
pub const CONCURRENCY: Field = opt(
    "concurrency",
    "number | null",
    "The most requests at once (at least 1).",
);
/// Which specs a walk follows to the paths metadata names.
pub const FOLLOW: Field = opt(
    "follow",
    "unknown",
    "The specs whose named paths a walk asks for: false (none), true or absent (the built-in ones), or a specs value.",
);
/// A walk's progress callback.
pub const WALK_PROGRESS: Field = opt(
    "onProgress",
    "(progress: RawWalkProgress) => void",
    "Called as nodes are read; what it throws is ignored.",
);

/// `walkHierarchy`.
pub const WALK_OPTIONS: Shape = Shape {
    name: "RawWalkOptions",
    doc: "Options of walkHierarchy (src/wasm/hierarchy.rs).",
    fields: &[
        DEPTH,
        CONCURRENCY,
        KIND,
        FORMAT,
        SIGNAL,
        LIMITS,
        FOLLOW,
        WALK_PROGRESS,
    ],
};

/// A read's progress callback.
pub const READ_PROGRESS: Field = opt(
    "onProgress",
    "(progress: RawReadProgress) => void",
    "Called as chunks are placed (not for getChunk); what it throws is ignored.",
);
/// How many fetched bytes a read holds at once.
pub const BYTES_IN_FLIGHT: Field = opt(
    "bytesInFlight",
    "number | null",
    "How many fetched, not yet decoded bytes a read holds at once.",
);
/// The largest output of the read.
pub const MAX_BYTES: Field = opt(
    "maxBytes",
    "number | null",
    "The largest output of the read, in bytes (limits.maxBytes).",
);
/// The pool's decode hook.
pub const DECODE_HOOK: Field = opt(
    "decodeHook",
    "RawDecodeHook",
    "Decodes chunks of fixed-size values elsewhere (the worker pool, src/wasm/pool.rs).",
);
/// The stored bits of a widened type.
pub const STORED_BITS: Field = opt(
    "storedBits",
    "boolean",
    "For the registry's small types (int4, bfloat16, the float8 family…): their stored bits as Uint8Array (Uint16Array for bfloat16) rather than values widened to Int8Array or Float32Array.",
);
/// The number of a chunk cache.
pub const CACHE_ID: Field = opt(
    "cacheId",
    "number | null",
    "The number of a chunk cache (newChunkCache) the read uses.",
);
/// Applies the caller's registered codecs.
pub const DECODE_EXTERNAL: Field = opt(
    "decodeExternal",
    "(steps: RawCodecStep[], bytes: Uint8Array, key: string) => Uint8Array | Promise<Uint8Array>",
    "Applies the caller's registered codecs to a chunk's stored bytes.",
);

/// `ArrayHandle.get` and `ArrayHandle.getChunk`.
pub const READ_OPTIONS: Shape = Shape {
    name: "RawReadOptions",
    doc: "Options of ArrayHandle.get and getChunk (src/wasm/hierarchy.rs).",
    fields: &[
        SIGNAL,
        READ_PROGRESS,
        BYTES_IN_FLIGHT,
        MAX_BYTES,
        LIMITS,
        DECODE_HOOK,
        CACHE_ID,
        DECODE_EXTERNAL,
        STORED_BITS,
    ],
};

/// `new ChunkDecoder`'s options.
pub const DECODER_OPTIONS: Shape = Shape {
    name: "RawDecoderOptions",
    doc: "Options of new ChunkDecoder (src/wasm/decode.rs).",
    fields: &[LIMITS, EXTENSIONS, CODECS],
};

/// `nodeFromZom`'s options.
pub const NODE_FROM_ZOM_OPTIONS: Shape = Shape {
    name: "RawNodeFromZomOptions",
    doc: "Options of nodeFromZom (src/wasm/hierarchy.rs): a ChunkDecoder's and the kind asked for.",
    fields: &[KIND, LIMITS, EXTENSIONS, CODECS],
};

/// The store key a document was read from.
pub const KEY: Field = opt(
    "key",
    "string",
    "The store key the document was read from: gives its kind and path.",
);
/// Strict validation.
pub const STRICT: Field = opt(
    "strict",
    "boolean",
    "Also report what SHOULD NOT be there, as warnings.",
);
/// ZEP 10 extension checks.
pub const CHECK_EXTENSIONS: Field =
    opt("extensions", "boolean", "Check ZEP 10 `extensions` lists.");
/// Extension handlers by name.
pub const EXTENSION_HANDLERS: Field = opt(
    "extensionHandlers",
    "{ [name: string]: ((extension: JsonValue, path: string, loc: (string | number)[]) => unknown) | true | null }",
    "Extension names known beyond the built-in ones, each with a checker (or true: known).",
);
/// Hierarchy specs to check.
pub const SPECS: Field = opt(
    "specs",
    "unknown",
    "Hierarchy specs: \"auto\", a built-in name, a spec (object, JSON text or bytes), or a list.",
);

/// `validateDocument`, `validateHierarchy` and `validateAttributes`.
pub const VALIDATE_OPTIONS: Shape = Shape {
    name: "RawValidateOptions",
    doc: "Options of validateDocument, validateHierarchy and validateAttributes (src/wasm/validate.rs).",
    fields: &[
        KEY,
        STRICT,
        CHECK_EXTENSIONS,
        EXTENSION_HANDLERS,
        SPECS,
        UNLISTED,
        UNKNOWN,
    ],
};

/// Groups a walk could not list.
pub const UNLISTED: Field = opt(
    "unlisted",
    "string[] | null",
    "Groups whose members are not all known (a walk's unlisted): their member counts are not checked.",
);
/// Paths a walk could not settle.
pub const UNKNOWN: Field = opt(
    "unknown",
    "string[] | null",
    "Node paths whose presence is not known (a walk's failed and unasked paths): nothing there is reported missing.",
);

/// Consolidated metadata too.
pub const CONSOLIDATED: Field = opt(
    "consolidated",
    "boolean",
    "Also write consolidated metadata.",
);

/// `toDocuments`.
pub const DOCUMENT_OPTIONS: Shape = Shape {
    name: "RawToDocumentsOptions",
    doc: "Options of toDocuments (src/wasm/model.rs).",
    fields: &[CONSOLIDATED],
};

/// A flat form.
pub const FORM: Field = opt(
    "form",
    "\"pydantic\" | \"zmetadata\" | \"consolidated\"",
    "The flat form (flatten: default pydantic; unflatten: detected when absent).",
);

/// `flatten` and `unflatten`.
pub const FLAT_OPTIONS: Shape = Shape {
    name: "RawFlatOptions",
    doc: "Options of flatten and unflatten (src/wasm/model.rs).",
    fields: &[FORM],
};

/// Fields to compare.
pub const INCLUDE: Field = opt("include", "string[] | null", "Compare only these fields.");
/// Fields to ignore.
pub const EXCLUDE: Field = opt(
    "exclude",
    "string[] | null",
    "Ignore these fields and everything inside them.",
);

/// `like` and `diff`.
pub const COMPARE_OPTIONS: Shape = Shape {
    name: "RawCompareOptions",
    doc: "Options of like and diff (src/wasm/model.rs).",
    fields: &[INCLUDE, EXCLUDE],
};

// The decode hook (an object the bindings call).

/// Makes the read's output.
pub const HOOK_SHARE: Field = req(
    "share",
    "(len: number, fill: Uint8Array, decodes: number) => void",
    "Makes the read's output of `len` bytes, every element `fill`, for `decodes` decodes.",
);
/// Decodes one chunk elsewhere.
pub const HOOK_DECODE: Field = req(
    "decode",
    "(inner: boolean, ptr: number, len: number, placement: Float64Array, shape?: Float64Array) => unknown",
    "Decodes the encoded chunk at `ptr` (WebAssembly memory) into the output; with a cache, resolves with the decoded chunk. `shape`: the chunk's, when the array's chunks differ in shape.",
);
/// Places a cached chunk.
pub const HOOK_PLACE: Field = req(
    "place",
    "(ptr: number, len: number, placement: Float64Array) => void",
    "Places a decoded chunk (at `ptr` in WebAssembly memory) into the output.",
);
/// The output's bytes.
pub const HOOK_OUTPUT: Field = req(
    "output",
    "() => Uint8Array",
    "The output's bytes, for values that become JS values in the core.",
);

/// The `decodeHook` read option.
pub const DECODE_HOOK_SHAPE: Shape = Shape {
    name: "RawDecodeHook",
    doc: "The read option decodeHook (src/wasm/pool.rs).",
    fields: &[HOOK_SHARE, HOOK_DECODE, HOOK_PLACE, HOOK_OUTPUT],
};

/// A problem an extension handler returns.
pub const PROBLEM_MESSAGE: Field = opt("message", "string", "What is wrong, in words.");
/// Its kind.
pub const PROBLEM_KIND: Field = opt(
    "kind",
    "\"missing_key\" | \"invalid_type\" | \"invalid_value\" | \"unknown_key\" | \"must_understand\"",
    "What kind of problem (default invalid_value).",
);
/// Its severity.
pub const PROBLEM_SEVERITY: Field = opt(
    "severity",
    "\"error\" | \"warning\"",
    "How serious (default error).",
);
/// Where, below the extension.
pub const PROBLEM_LOC: Field = opt("loc", "(string | number)[]", "Where inside the extension.");

/// What an extension handler (the validate option extensionHandlers) returns a list of.
pub const HANDLER_PROBLEM: Shape = Shape {
    name: "RawHandlerProblem",
    doc: "A problem an extension handler returns (src/wasm/validate.rs); a string is its message.",
    fields: &[PROBLEM_MESSAGE, PROBLEM_KIND, PROBLEM_SEVERITY, PROBLEM_LOC],
};

// Results.

/// One registered codec applied to a chunk, as `decodeExternal` receives it.
pub const CODEC_STEP: Shape = Shape {
    name: "RawCodecStep",
    doc: "One registered codec as decodeExternal receives it (src/wasm/store.rs).",
    fields: &[
        req("name", "string", "The name as the metadata writes it."),
        req(
            "configuration",
            "Record<string, unknown>",
            "Its configuration (numcodecs: the whole object).",
        ),
    ],
};

/// A read's progress.
pub const READ_PROGRESS_SHAPE: Shape = Shape {
    name: "RawReadProgress",
    doc: "What a read's onProgress receives.",
    fields: &[
        req("done", "number", "Chunks placed."),
        req("total", "number", "Chunks the read touches."),
        req("cached", "number", "Chunks placed from the cache."),
    ],
};

/// A walk's progress.
pub const WALK_PROGRESS_SHAPE: Shape = Shape {
    name: "RawWalkProgress",
    doc: "What a walk's onProgress receives.",
    fields: &[
        req("nodes", "number", "Nodes read."),
        req("pending", "number", "Requests under way."),
        req("errors", "number", "Nodes that failed."),
        req(
            "found",
            "string[]",
            "The paths of the nodes read since the last call, relative to the start node.",
        ),
    ],
};

/// An opened node.
pub const NODE_RESULT: Shape = Shape {
    name: "RawNode",
    doc: "What openNode, nodeFromZom and DeferredGroup.open give (src/wasm/hierarchy.rs).",
    fields: &[
        opt(
            "deferred",
            "{ names(): string[]; zom(): unknown; open(relative: string, options: unknown): unknown }",
            "A v3 group's consolidated members, not read yet (the module's DeferredGroup).",
        ),
        req("kind", "\"array\" | \"group\"", "What the node is."),
        req("path", "string", "Its node path."),
        req("zom", "Zom", "Its ZOM node."),
        req(
            "consolidated",
            "boolean",
            "Whether it came from consolidated metadata.",
        ),
        opt(
            "array",
            "unknown",
            "An array's handle (the module's ArrayHandle: unknown, so that the published declarations do not name the wasm-bindgen ones).",
        ),
    ],
};

/// A walk's result.
pub const WALK_RESULT: Shape = Shape {
    name: "RawWalkResult",
    doc: "What walkHierarchy resolves with (src/wasm/hierarchy.rs).",
    fields: &[
        req("zom", "Zom", "The tree below the start node."),
        req(
            "errors",
            "unknown[]",
            "The nodes that failed, as error objects.",
        ),
        req(
            "unlisted",
            "string[]",
            "The groups that could not be listed and whose metadata names no member.",
        ),
        req(
            "unasked",
            "string[]",
            "Paths metadata names below the depth asked for.",
        ),
        req(
            "consolidated",
            "boolean",
            "Whether the tree came from consolidated metadata.",
        ),
    ],
};

/// What a chunk cache did and holds.
pub const CACHE_STATS: Shape = Shape {
    name: "ChunkCacheStats",
    doc: "What a ChunkCache has done and holds.",
    fields: &[
        req(
            "hits",
            "number",
            "Chunks (inner chunks of shards) found in the cache: no request, no decode.",
        ),
        req(
            "misses",
            "number",
            "Chunks looked up and not found (then fetched, decoded and kept).",
        ),
        req(
            "evictions",
            "number",
            "Entries dropped to stay within `maxBytes`.",
        ),
        req(
            "bytes",
            "number",
            "What the entries take, in bytes (at most `maxBytes`).",
        ),
        req("entries", "number", "Entries held."),
    ],
};

/// What the generated file imports for the types its fields name.
/// Not the module's own declarations (zom_wasm.d.ts): the published ones do not name them.
pub const TS_IMPORTS: &str = "import type { JsonValue, Zom } from \"../shared/types.js\";\n";

/// Every shape, in the order ts/generated/boundary.ts declares them.
pub const SHAPES: &[Shape] = &[
    OPEN_OPTIONS,
    WALK_OPTIONS,
    READ_OPTIONS,
    DECODER_OPTIONS,
    NODE_FROM_ZOM_OPTIONS,
    VALIDATE_OPTIONS,
    DOCUMENT_OPTIONS,
    FLAT_OPTIONS,
    COMPARE_OPTIONS,
    DECODE_HOOK_SHAPE,
    HANDLER_PROBLEM,
    CODEC_STEP,
    READ_PROGRESS_SHAPE,
    WALK_PROGRESS_SHAPE,
    NODE_RESULT,
    WALK_RESULT,
    CACHE_STATS,
];

/// The doc comment of each limit in TypeScript, by its JS name (the generator checks that
/// every [`crate::limits::Limit`] has one).
pub const LIMIT_DOCS: &[(&str, &str)] = &[
    ("maxChunkBytes", "The largest decoded chunk (a shard decoded whole counts as one) and intermediate codec stream, in bytes. Default 1 GiB."),
    ("maxBytes", "The largest output of one `get`, in bytes. Default 1 GiB."),
    ("maxChunks", "The most chunks one `get` may touch (and inner chunks of one shard). Default 1,048,576."),
    ("maxDocumentBytes", "The largest metadata document (`zarr.json`, `.zmetadata`, …), in bytes. Default 64 MiB."),
    ("maxJsonDepth", "The deepest nesting of JSON arrays and objects in a document. Default and maximum 127."),
    ("maxNodes", "The most nodes one walk visits. Default 1,000,000."),
    ("maxShardIndexBytes", "The largest shard index (16 bytes per inner chunk), in bytes. Default 16 MiB."),
];
