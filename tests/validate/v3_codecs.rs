//! v3 codec pipelines and the known codecs' configurations.

use super::*;

#[test]
fn v3_codec_pipeline_order() {
    let gzip = json!({"name": "gzip", "configuration": {"level": 1}});
    let transpose = json!({"name": "transpose", "configuration": {"order": [1, 0]}});
    let r = v3(&arr_with_codecs(json!([gzip, bytes_le()])));
    only(&r, "", json!(["codecs", 0]), "invalid_value");
    let r = v3(&arr_with_codecs(json!([bytes_le(), bytes_le()])));
    only(&r, "", json!(["codecs", 1]), "invalid_value");
    let r = v3(&arr_with_codecs(json!([bytes_le(), transpose])));
    only(&r, "", json!(["codecs", 1]), "invalid_value");
    let r = v3(&arr_with_codecs(json!([transpose, gzip])));
    err(&r, "", json!(["codecs"]), "invalid_value");
    only(
        &v3(&arr_with_codecs(json!([]))),
        "",
        json!(["codecs"]),
        "invalid_value",
    );
    only(
        &v3(&arr_with_codecs(json!({"name": "bytes"}))),
        "",
        json!(["codecs"]),
        "invalid_type",
    );
    clean(&v3(&arr_with_codecs(json!([transpose, bytes_le(), gzip]))));
}

#[test]
fn v3_bytes_codec() {
    let r = v3(&arr_with_codecs(json!([{"name": "bytes"}])));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "endian"]),
        "missing_key",
    );
    let r = v3(&arr_with_codecs(
        json!([{"name": "bytes", "configuration": {"endian": "middle"}}]),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "endian"]),
        "invalid_value",
    );
    let r = v3(&arr_with_codecs(
        json!([{"name": "bytes", "configuration": {"endian": "big", "x": 1}}]),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "x"]),
        "unknown_key",
    );
    // Single-byte types may omit endian (or give it).
    let bools = set(
        set(arr(), "/data_type", json!("bool")),
        "/fill_value",
        json!(false),
    );
    clean(&v3(&set(bools.clone(), "/codecs", json!(["bytes"]))));
    clean(&v3(&set(bools, "/codecs", json!([bytes_le()]))));
    // Variable-length types cannot go through bytes.
    let strings = set(
        set(arr(), "/data_type", json!("string")),
        "/fill_value",
        json!(""),
    );
    only(
        &v3(&set(strings, "/codecs", json!([bytes_le()]))),
        "",
        json!(["codecs", 0]),
        "invalid_value",
    );
}

#[test]
fn v3_vlen_codecs() {
    let r = v3(&arr_with_codecs(
        json!([{"name": "vlen-utf8", "configuration": {}}]),
    ));
    only(&r, "", json!(["codecs", 0]), "invalid_value");
    let r = v3(&arr_with_codecs(json!([{"name": "vlen-bytes"}])));
    only(&r, "", json!(["codecs", 0]), "invalid_value");
}

#[test]
fn v3_transpose() {
    let t = |order: Value| {
        arr_with_codecs(
            json!([{"name": "transpose", "configuration": {"order": order}}, bytes_le()]),
        )
    };
    only(
        &v3(&t(json!([0, 0]))),
        "",
        json!(["codecs", 0, "configuration", "order", 1]),
        "invalid_value",
    );
    only(
        &v3(&t(json!([0, 2]))),
        "",
        json!(["codecs", 0, "configuration", "order", 1]),
        "invalid_value",
    );
    err(
        &v3(&t(json!([0, 1, 2]))),
        "",
        json!(["codecs", 0, "configuration", "order"]),
        "invalid_value",
    );
    only(
        &v3(&t(json!("C"))),
        "",
        json!(["codecs", 0, "configuration", "order"]),
        "invalid_type",
    );
    let r = v3(&arr_with_codecs(json!([{"name": "transpose"}, bytes_le()])));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "order"]),
        "missing_key",
    );
}

#[test]
fn v3_gzip_zstd_crc32c() {
    let c = |codec: Value| arr_with_codecs(json!([bytes_le(), codec]));
    let r = v3(&c(json!({"name": "gzip", "configuration": {"level": 12}})));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "level"]),
        "invalid_value",
    );
    let r = v3(&c(json!({"name": "gzip", "configuration": {"level": 1.5}})));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "level"]),
        "invalid_type",
    );
    let r = v3(&c(json!({"name": "gzip"})));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "level"]),
        "missing_key",
    );
    let r = v3(&c(
        json!({"name": "zstd", "configuration": {"level": 23, "checksum": "no"}}),
    ));
    err(
        &r,
        "",
        json!(["codecs", 1, "configuration", "level"]),
        "invalid_value",
    );
    err(
        &r,
        "",
        json!(["codecs", 1, "configuration", "checksum"]),
        "invalid_type",
    );
    clean(&v3(&c(
        json!({"name": "zstd", "configuration": {"level": -131072}}),
    )));
    let r = v3(&c(
        json!({"name": "crc32c", "configuration": {"location": "end"}}),
    ));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "location"]),
        "unknown_key",
    );
}

#[test]
fn v3_blosc() {
    let b = |conf: Value| {
        arr_with_codecs(json!([bytes_le(), {"name": "blosc", "configuration": conf}]))
    };
    clean(&v3(&b(
        json!({"cname": "zstd", "clevel": 5, "shuffle": "shuffle", "typesize": 4, "blocksize": 0}),
    )));
    clean(&v3(&b(
        json!({"cname": "lz4", "clevel": 0, "shuffle": "noshuffle", "blocksize": 0}),
    )));
    let r = v3(&b(
        json!({"cname": "gzip", "clevel": 10, "shuffle": 1, "typesize": 0, "blocksize": -1}),
    ));
    let at = |k: &str| json!(["codecs", 1, "configuration", k]);
    err(&r, "", at("cname"), "invalid_value");
    err(&r, "", at("clevel"), "invalid_value");
    err(&r, "", at("shuffle"), "invalid_type");
    err(&r, "", at("typesize"), "invalid_value");
    err(&r, "", at("blocksize"), "invalid_value");
    assert_eq!(r.problems.len(), 5, "{}", dump(&r));
    let r = v3(&b(
        json!({"cname": "lz4", "clevel": 1, "shuffle": "bitshuffle", "blocksize": 0}),
    ));
    only(&r, "", at("typesize"), "missing_key");
}

#[test]
fn v3_sharding() {
    let cfg = "/codecs/0/configuration";
    let r = v3(&set(
        sharded(),
        &format!("{cfg}/chunk_shape"),
        json!([5, 3]),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "chunk_shape", 1]),
        "invalid_value",
    );
    let r = v3(&set(sharded(), &format!("{cfg}/chunk_shape"), json!([5])));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "chunk_shape"]),
        "invalid_value",
    );
    // The nested pipeline is checked recursively, with its own loc.
    let r = v3(&set(
        sharded(),
        &format!("{cfg}/codecs/1/configuration/level"),
        json!(99),
    ));
    only(
        &r,
        "",
        json!([
            "codecs",
            0,
            "configuration",
            "codecs",
            1,
            "configuration",
            "level"
        ]),
        "invalid_value",
    );
    let r = v3(&set(
        sharded(),
        &format!("{cfg}/codecs/0"),
        json!({"name": "bytes"}),
    ));
    only(
        &r,
        "",
        json!([
            "codecs",
            0,
            "configuration",
            "codecs",
            0,
            "configuration",
            "endian"
        ]),
        "missing_key",
    );
    let r = v3(&set(
        sharded(),
        &format!("{cfg}/index_codecs/1"),
        json!({"name": "gzip", "configuration": {"level": 1}}),
    ));
    err(
        &r,
        "",
        json!(["codecs", 0, "configuration", "index_codecs", 1]),
        "invalid_value",
    );
    let r = v3(&set(
        sharded(),
        &format!("{cfg}/index_location"),
        json!("middle"),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "index_location"]),
        "invalid_value",
    );
    let r = v3(&del(sharded(), &format!("{cfg}/index_codecs")));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "index_codecs"]),
        "missing_key",
    );
    clean(&v3(&del(sharded(), &format!("{cfg}/index_location"))));
    // RECOMMENDED index codecs: strict warning only.
    let plain = del(sharded(), &format!("{cfg}/index_codecs/1"));
    clean(&v3(&plain));
    warn(
        &validate_document(&plain, &strict()),
        "",
        json!(["codecs", 0, "configuration", "index_codecs"]),
        "invalid_value",
    );
}

#[test]
fn v3_packbits_and_bitround() {
    let p = |conf: Value| arr_with_codecs(json!([{"name": "packbits", "configuration": conf}]));
    clean(&v3(&p(
        json!({"padding_encoding": "first_byte", "first_bit": 0, "last_bit": 3}),
    )));
    let r = v3(&p(json!({"padding_encoding": "sometimes"})));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "padding_encoding"]),
        "invalid_value",
    );
    let r = v3(&p(json!({"first_bit": 4, "last_bit": 2})));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "last_bit"]),
        "invalid_value",
    );
    let r = v3(&p(json!({"last_bit": 32})));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "last_bit"]),
        "invalid_value",
    );
    let strings = set(
        set(arr(), "/data_type", json!("string")),
        "/fill_value",
        json!(""),
    );
    let r = v3(&set(strings, "/codecs", json!([{"name": "packbits"}])));
    only(&r, "", json!(["codecs", 0]), "invalid_value");

    let b = |keep: Value, dt: &str| {
        let doc = set(set(arr(), "/data_type", json!(dt)), "/fill_value", json!(0));
        set(
            doc,
            "/codecs",
            json!([{"name": "bitround", "configuration": {"keepbits": keep}}, bytes_le()]),
        )
    };
    clean(&v3(&b(json!(10), "float32")));
    only(
        &v3(&b(json!(0), "float32")),
        "",
        json!(["codecs", 0, "configuration", "keepbits"]),
        "invalid_value",
    );
    only(
        &v3(&b(json!(11), "float16")),
        "",
        json!(["codecs", 0, "configuration", "keepbits"]),
        "invalid_value",
    );
    only(
        &v3(&b(json!(-1), "float32")),
        "",
        json!(["codecs", 0, "configuration", "keepbits"]),
        "invalid_value",
    );
}

#[test]
fn v3_numcodecs_names() {
    let n = |codec: Value| arr_with_codecs(json!([bytes_le(), codec]));
    let r = v3(&n(
        json!({"name": "numcodecs.zlib", "configuration": {"level": 11}}),
    ));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "level"]),
        "invalid_value",
    );
    let r = v3(&arr_with_codecs(
        json!([{"name": "numcodecs.delta", "configuration": {"dtype": "<x9"}}, bytes_le()]),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "dtype"]),
        "invalid_value",
    );
    let r = v3(&arr_with_codecs(
        json!([{"name": "numcodecs.delta", "configuration": {}}, bytes_le()]),
    ));
    only(
        &r,
        "",
        json!(["codecs", 0, "configuration", "dtype"]),
        "missing_key",
    );
    let r = v3(&n(
        json!({"name": "numcodecs.blosc", "configuration": {"shuffle": 7}}),
    ));
    only(
        &r,
        "",
        json!(["codecs", 1, "configuration", "shuffle"]),
        "invalid_value",
    );
    // A numcodecs filter after the array→bytes codec is out of order.
    let r = v3(&n(
        json!({"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}),
    ));
    only(&r, "", json!(["codecs", 1]), "invalid_value");
    // numcodecs ids zom does not know are accepted (strict: warning).
    let other = n(json!({"name": "numcodecs.someday", "configuration": {"x": 1}}));
    clean(&v3(&other));
    let r = validate_document(&other, &strict());
    assert!(r.valid);
    warn(&r, "", json!(["codecs", 1]), "invalid_value");
    let old = arr_with_codecs(
        json!([{"name": "numcodecs.bitround", "configuration": {"keepbits": 3}}, bytes_le()]),
    );
    clean(&v3(&old));
    let r = validate_document(&old, &strict());
    assert!(r.valid);
    warn(&r, "", json!(["codecs", 0]), "invalid_value");
}

#[test]
fn v3_unknown_codecs_follow_must_understand() {
    let r = v3(&arr_with_codecs(
        json!([bytes_le(), {"name": "acme.magic"}]),
    ));
    only(&r, "", json!(["codecs", 1]), "must_understand");
    let ok = arr_with_codecs(json!([bytes_le(), {"name": "acme.magic", "must_understand": false}]));
    clean(&v3(&ok));
    warn(
        &validate_document(&ok, &strict()),
        "",
        json!(["codecs", 1]),
        "must_understand",
    );
    let r = v3(&arr_with_codecs(
        json!([bytes_le(), {"name": "gzip", "configuration": {"level": 1}, "extra": 1}]),
    ));
    only(&r, "", json!(["codecs", 1, "extra"]), "unknown_key");
    let r = v3(&arr_with_codecs(
        json!([bytes_le(), {"name": "gzip", "configuration": [1]}]),
    ));
    err(
        &r,
        "",
        json!(["codecs", 1, "configuration"]),
        "invalid_type",
    );
}
