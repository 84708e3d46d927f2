use serde_json::{json, Value};

use super::{Schema, SchemaError};
use crate::problem::LocStep;

fn compile(schema: &Value) -> Schema {
    match Schema::compile(schema, "") {
        Ok(s) => s,
        Err(e) => panic!("{schema} does not compile: {e:?}"),
    }
}

fn errors(schema: &Value, instance: &Value) -> Vec<SchemaError> {
    let s = compile(schema);
    let mut out = Vec::new();
    s.errors(instance, &[], &mut out);
    assert_eq!(
        out.is_empty(),
        s.is_valid(instance),
        "{schema} on {instance}: {out:?}"
    );
    out
}

fn messages(schema: &Value, instance: &Value) -> Vec<String> {
    errors(schema, instance)
        .into_iter()
        .map(|e| e.message)
        .collect()
}

fn compile_errors(schema: &Value) -> Vec<String> {
    match Schema::compile(schema, "") {
        Ok(_) => panic!("{schema} compiled"),
        Err(e) => e,
    }
}

fn key(k: &str) -> LocStep {
    LocStep::Key(k.into())
}

#[test]
fn type_and_integer() {
    let s = json!({"type": "integer"});
    assert!(compile(&s).is_valid(&json!(3.0)));
    assert!(compile(&s).is_valid(&json!(-3)));
    assert_eq!(
        messages(&s, &json!(3.5)),
        ["3.5 is not of type \"integer\""]
    );
    let s = json!({"type": ["string", "null"]});
    assert!(compile(&s).is_valid(&Value::Null));
    assert_eq!(
        messages(&s, &json!(1)),
        ["1 is not of types \"null\", \"string\""]
    );
}

#[test]
fn messages_as_documented() {
    assert_eq!(
        messages(&json!({"required": ["shape"]}), &json!({})),
        ["\"shape\" is a required property"]
    );
    assert_eq!(
        messages(&json!({"minimum": 4}), &json!(3)),
        ["3 is less than the minimum of 4"]
    );
    assert_eq!(
        messages(&json!({"pattern": "^[a-z]+$"}), &json!("foo1")),
        ["\"foo1\" does not match \"^[a-z]+$\""]
    );
    assert_eq!(
        messages(&json!({"minItems": 2}), &json!(["x"])),
        ["[\"x\"] has fewer than 2 items"]
    );
    assert_eq!(
        messages(&json!({"enum": ["a", "b"]}), &json!("abc")),
        ["\"abc\" is not one of [\"a\", \"b\"]"]
    );
    assert_eq!(
        messages(
            &json!({"anyOf": [{"type": "string"}, {"minimum": 2}]}),
            &json!(1)
        ),
        ["1 is not valid under any of the schemas in anyOf"]
    );
    assert_eq!(
        messages(
            &json!({"additionalProperties": false, "properties": {"a": true}}),
            &json!({"a": 1, "b": 2})
        ),
        ["Additional properties are not allowed (\"b\" was unexpected)"]
    );
}

#[test]
fn long_values_are_cut() {
    let long = "x".repeat(500);
    let m = messages(&json!({"maxLength": 3}), &json!(long));
    assert_eq!(m.len(), 1);
    assert!(m[0].len() < 120, "{}", m[0]);
    assert!(m[0].contains('…'));
    let m = messages(
        &json!({"maxItems": 1}),
        &json!((0..1000).collect::<Vec<_>>()),
    );
    assert!(m[0].len() < 120, "{}", m[0]);
}

#[test]
fn locations_and_keyword_paths() {
    let root = json!({"definitions": {"image": {"attributes": {
        "type": "object",
        "properties": {"multiscales": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/ms"}}},
        "required": ["multiscales"]
    }}}, "$defs": {"ms": {"required": ["axes"], "properties": {"axes": {"type": "array"}}}}});
    let s = Schema::compile(&root, "/definitions/image/attributes").unwrap();
    let mut out = Vec::new();
    s.errors(&json!({"multiscales": []}), &[key("attributes")], &mut out);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].loc, [key("attributes"), key("multiscales")]);
    assert_eq!(
        out[0].keyword,
        "/definitions/image/attributes/properties/multiscales/minItems"
    );
    out.clear();
    s.errors(&json!({"multiscales": [{}, {"axes": 1}]}), &[], &mut out);
    assert_eq!(out.len(), 2);
    // A missing property is located at its key, as the Zarr validator locates one.
    assert_eq!(
        out[0].loc,
        [key("multiscales"), LocStep::Index(0), key("axes")]
    );
    assert_eq!(out[0].keyword, "/$defs/ms/required");
    assert_eq!(
        out[1].loc,
        [key("multiscales"), LocStep::Index(1), key("axes")]
    );
    assert_eq!(out[1].keyword, "/$defs/ms/properties/axes/type");
    assert!(s.is_valid(&json!({"multiscales": [{"axes": []}]})));
}

#[test]
fn one_error_for_any_one_not() {
    let s = json!({"properties": {"a": {"oneOf": [{"type": "integer"}, {"minimum": 0}]}}});
    let e = errors(&s, &json!({"a": 3}));
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].keyword, "/properties/a/oneOf");
    assert!(e[0].message.contains("more than one"), "{}", e[0].message);
    let e = errors(&json!({"not": {"type": "string"}}), &json!("x"));
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].keyword, "/not");
    let s = json!({"anyOf": [{"required": ["a", "b", "c"]}, {"required": ["d", "e"]}]});
    assert_eq!(errors(&s, &json!({})).len(), 1);
}

#[test]
fn recursive_ref() {
    let tree = json!({
        "$defs": {"node": {"type": "object", "properties": {
            "value": {"type": "integer"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
        "$ref": "#/$defs/node"
    });
    let s = compile(&tree);
    assert!(s.is_valid(&json!({"value": 1, "children": [{"value": 2, "children": []}]})));
    let bad = json!({"children": [{"children": [{"value": "x"}]}]});
    let e = errors(&tree, &bad);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].keyword, "/$defs/node/properties/value/type");
    assert_eq!(
        e[0].loc,
        [
            key("children"),
            LocStep::Index(0),
            key("children"),
            LocStep::Index(0),
            key("value")
        ]
    );
    // "#" alone is the root; recursion through items descends into the instance.
    let s = compile(&json!({"type": "array", "items": {"$ref": "#"}}));
    assert!(s.is_valid(&json!([[[]], []])));
    assert!(!s.is_valid(&json!([[1]])));
}

#[test]
fn ref_escapes() {
    let root = json!({"$defs": {"a/b": {"const": 1}, "c~d": {"const": 2}, "e f": {"const": 3}},
        "properties": {"x": {"$ref": "#/$defs/a~1b"}, "y": {"$ref": "#/$defs/c~0d"}, "z": {"$ref": "#/$defs/e%20f"}}});
    let s = compile(&root);
    assert!(s.is_valid(&json!({"x": 1, "y": 2, "z": 3})));
    assert!(!s.is_valid(&json!({"x": 2})));
    assert!(!s.is_valid(&json!({"y": 1})));
    assert!(!s.is_valid(&json!({"z": 1})));
}

#[test]
fn deep_instance_stops() {
    let s = compile(&json!({"items": {"$ref": "#"}}));
    let mut v = json!([]);
    for _ in 0..600 {
        v = json!([v]);
    }
    assert!(!s.is_valid(&v));
    let mut out = Vec::new();
    s.errors(&v, &[], &mut out);
    assert_eq!(out.len(), 1);
    assert!(
        out[0].message.contains("nested deeper"),
        "{}",
        out[0].message
    );
}

#[test]
fn compile_errors_named() {
    let e = compile_errors(&json!({"properties": {"a": {"pattern": "(unclosed"}}}));
    assert!(
        e[0].starts_with("/properties/a/pattern: bad regular expression"),
        "{e:?}"
    );
    let e = compile_errors(&json!({"properties": {"a": {"minItem": 1}}}));
    assert!(
        e[0].starts_with("/properties/a/minItem: unknown keyword"),
        "{e:?}"
    );
    let e = compile_errors(&json!({"items": {"$ref": "#/$defs/missing"}}));
    assert!(e[0].starts_with("/items/$ref:"), "{e:?}");
    let e = compile_errors(&json!({"$ref": "#"}));
    assert!(e[0].contains("cycle"), "{e:?}");
    let e = compile_errors(
        &json!({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}}, "$ref": "#/$defs/a"}),
    );
    assert!(e[0].contains("cycle"), "{e:?}");
    let e = compile_errors(&json!({"unevaluatedProperties": false}));
    assert!(e[0].contains("not supported"), "{e:?}");
    let e = compile_errors(&json!({"$ref": "other.json#/a"}));
    assert!(e[0].contains("local"), "{e:?}");
    let e =
        compile_errors(&json!({"minItems": -1, "type": "str", "required": "a", "items": [true]}));
    assert_eq!(e.len(), 4, "{e:?}");
    // Every problem is reported, not only the first.
    let e = compile_errors(&json!({"properties": {"a": {"foo": 1}, "b": {"bar": 2}}}));
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(Schema::compile(&json!({"a": 1}), "/b").is_err());
    assert!(Schema::compile(&json!({"a": 1}), "/a").is_err());
    // Annotations and extensions pass.
    compile(
        &json!({"title": "t", "description": "d", "format": "uri", "x-zom": 1, "$comment": "c", "default": 1}),
    );
}

#[test]
fn hostile_sizes() {
    // A pattern too large for the size limit is a compile error, not memory.
    let e = compile_errors(&json!({"pattern": "(a{1000}){1000}"}));
    assert!(e[0].contains("pattern"), "{e:?}");
    // Deeply nested schema.
    let mut s = json!(true);
    for _ in 0..200 {
        s = json!({"not": {"not": s}});
    }
    let e = compile_errors(&s);
    assert!(e[0].contains("nested deeper"), "{e:?}");
    // Huge counts and numbers do not overflow.
    let s = compile(
        &json!({"minItems": 18446744073709551615u64, "maxLength": 18446744073709551615u64, "multipleOf": 1e-300}),
    );
    assert!(!s.is_valid(&json!([])));
    assert!(s.is_valid(&json!("x")));
    assert!(!compile(&json!({"multipleOf": 1e-300})).is_valid(&json!(1e300)));
}

#[test]
fn unique_items_long_arrays() {
    let s = compile(&json!({"uniqueItems": true}));
    let mut items: Vec<Value> = (0..100).map(|i| json!(i)).collect();
    assert!(s.is_valid(&Value::Array(items.clone())));
    items.push(json!(50.0));
    assert!(!s.is_valid(&Value::Array(items.clone())));
    let objs: Vec<Value> = (0..100).map(|i| json!({"a": i, "b": [i]})).collect();
    assert!(s.is_valid(&Value::Array(objs.clone())));
    let mut dup = objs;
    dup.push(json!({"b": [7.0], "a": 7}));
    assert!(!s.is_valid(&Value::Array(dup)));
}

/// (schema, instance) pairs whose verdicts are compared with the jsonschema crate's.
fn table() -> Vec<(Value, Value)> {
    let mut t = Vec::new();
    let mut add = |s: Value, instances: Vec<Value>| {
        for i in instances {
            t.push((s.clone(), i));
        }
    };
    add(json!(true), vec![json!(1), json!(null)]);
    add(json!(false), vec![json!(1), json!({})]);
    add(
        json!({"type": "integer"}),
        vec![json!(1), json!(1.0), json!(1.5), json!("1"), json!(-0.0)],
    );
    add(
        json!({"type": "number"}),
        vec![json!(1), json!(1e308), json!(null)],
    );
    add(
        json!({"type": ["array", "object"]}),
        vec![json!([]), json!({}), json!("")],
    );
    add(json!({"type": "boolean"}), vec![json!(true), json!(0)]);
    add(json!({"type": "null"}), vec![json!(null), json!(false)]);
    add(
        json!({"enum": [1, "a", [1, 2], {"k": null}]}),
        vec![
            json!(1.0),
            json!("a"),
            json!([1, 2.0]),
            json!({"k": null}),
            json!([2, 1]),
            json!("b"),
        ],
    );
    add(
        json!({"const": {"a": [1, 2]}}),
        vec![json!({"a": [1.0, 2]}), json!({"a": [2, 1]})],
    );
    add(json!({"const": 0}), vec![json!(0.0), json!(false)]);
    let obj =
        json!({"properties": {"a": {"type": "string"}, "b": {"minimum": 0}}, "required": ["a"]});
    add(
        obj,
        vec![
            json!({"a": "x"}),
            json!({"a": 1}),
            json!({"b": 1}),
            json!({"a": "x", "b": -1}),
            json!([]),
        ],
    );
    let add_props = json!({"properties": {"a": true}, "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": false});
    add(
        add_props,
        vec![
            json!({"a": 1, "x-b": 2}),
            json!({"x-b": "s"}),
            json!({"c": 1}),
            json!({"ax-": 1}),
        ],
    );
    add(
        json!({"additionalProperties": {"type": "number"}}),
        vec![json!({"a": 1}), json!({"a": "1"})],
    );
    add(
        json!({"patternProperties": {"o": {"minLength": 2}}}),
        vec![
            json!({"foo": "ab"}),
            json!({"foo": "a"}),
            json!({"bar": "a"}),
        ],
    );
    add(
        json!({"propertyNames": {"pattern": "^[a-z]+$"}}),
        vec![json!({"abc": 1}), json!({"aBc": 1}), json!({})],
    );
    add(
        json!({"propertyNames": {"maxLength": 2}}),
        vec![json!({"ab": 1}), json!({"abc": 1})],
    );
    add(
        json!({"minProperties": 1, "maxProperties": 2}),
        vec![json!({}), json!({"a": 1}), json!({"a": 1, "b": 2, "c": 3})],
    );
    add(
        json!({"dependentRequired": {"a": ["b", "c"]}}),
        vec![
            json!({"a": 1, "b": 1, "c": 1}),
            json!({"a": 1, "b": 1}),
            json!({"b": 1}),
        ],
    );
    add(
        json!({"dependentSchemas": {"a": {"required": ["b"]}}}),
        vec![json!({"a": 1}), json!({"a": 1, "b": 2}), json!({})],
    );
    add(
        json!({"items": {"type": "integer"}}),
        vec![json!([1, 2.0]), json!([1, "2"]), json!([])],
    );
    let tuple = json!({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "boolean"}});
    add(
        tuple,
        vec![
            json!(["a", 1]),
            json!(["a", 1, true, false]),
            json!(["a", 1, 2]),
            json!([1]),
            json!(["a"]),
        ],
    );
    add(
        json!({"prefixItems": [true], "items": false}),
        vec![json!([1]), json!([1, 2]), json!([])],
    );
    add(
        json!({"minItems": 2, "maxItems": 3}),
        vec![json!([1]), json!([1, 2]), json!([1, 2, 3, 4]), json!("ab")],
    );
    add(
        json!({"uniqueItems": true}),
        vec![
            json!([1, 1.0]),
            json!([1, 2]),
            json!([{"a": 1}, {"a": 1.0}]),
            json!([[1], [true]]),
            json!([0, false]),
        ],
    );
    add(json!({"uniqueItems": false}), vec![json!([1, 1])]);
    add(
        json!({"contains": {"type": "string"}}),
        vec![json!([1, "a"]), json!([1, 2]), json!([])],
    );
    let mc = json!({"contains": {"type": "string"}, "minContains": 2, "maxContains": 3});
    add(
        mc,
        vec![
            json!(["a"]),
            json!(["a", "b"]),
            json!(["a", "b", "c", "d"]),
            json!(["a", 1, "b", 2, "c"]),
        ],
    );
    add(
        json!({"contains": {"const": 1}, "minContains": 0}),
        vec![json!([]), json!([2])],
    );
    add(
        json!({"contains": {"const": 1}, "maxContains": 1}),
        vec![json!([1, 1]), json!([1, 2])],
    );
    add(
        json!({"minimum": 1.5, "maximum": 3}),
        vec![json!(1.5), json!(1), json!(3.0), json!(3.01), json!("0")],
    );
    add(
        json!({"exclusiveMinimum": 0, "exclusiveMaximum": 10}),
        vec![json!(0), json!(0.001), json!(10), json!(9)],
    );
    add(
        json!({"minimum": 9007199254740993u64}),
        vec![json!(9007199254740992u64), json!(9007199254740993u64)],
    );
    add(
        json!({"multipleOf": 2}),
        vec![json!(4), json!(4.0), json!(5), json!(-6)],
    );
    add(
        json!({"multipleOf": 0.5}),
        vec![json!(7.5), json!(7.3), json!(2)],
    );
    add(
        json!({"minLength": 2, "maxLength": 3}),
        vec![
            json!("é"),
            json!("éé"),
            json!("😀😀😀"),
            json!("😀😀😀😀"),
            json!(1),
        ],
    );
    add(
        json!({"pattern": "a+"}),
        vec![json!("xaay"), json!("xy"), json!(5)],
    );
    add(
        json!({"pattern": "^[0-9]{2}$"}),
        vec![json!("12"), json!("123")],
    );
    add(
        json!({"allOf": [{"type": "integer"}, {"minimum": 2}]}),
        vec![json!(3), json!(1), json!(2.5)],
    );
    add(
        json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
        vec![json!("a"), json!(null), json!(1)],
    );
    add(
        json!({"oneOf": [{"type": "integer"}, {"minimum": 2}]}),
        vec![json!(1), json!(2.5), json!(3), json!(1.5)],
    );
    add(
        json!({"not": {"type": "string"}}),
        vec![json!(1), json!("a")],
    );
    let cond = json!({"if": {"properties": {"k": {"const": "a"}}}, "then": {"required": ["x"]}, "else": {"required": ["y"]}});
    add(
        cond,
        vec![
            json!({"k": "a", "x": 1}),
            json!({"k": "a", "y": 1}),
            json!({"k": "b", "y": 1}),
            json!({"k": "b", "x": 1}),
            json!({"y": 1}),
        ],
    );
    add(
        json!({"if": {"type": "string"}, "then": {"minLength": 2}}),
        vec![json!("a"), json!("ab"), json!(1)],
    );
    add(json!({"then": false}), vec![json!(1)]);
    let refs = json!({"$defs": {"pos": {"type": "integer", "minimum": 0}}, "properties": {"n": {"$ref": "#/$defs/pos"}}});
    add(refs, vec![json!({"n": 1}), json!({"n": -1})]);
    let r2 = json!({"$defs": {"list": {"type": "array", "items": {"$ref": "#/$defs/list"}}}, "$ref": "#/$defs/list"});
    add(r2, vec![json!([[], [[]]]), json!([[1]])]);
    let sib = json!({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 2});
    add(sib, vec![json!("ab"), json!("abc"), json!(1)]);
    t
}

/// Where jsonschema 0.33 disagrees with the spec, our verdict is the spec's.
#[test]
fn where_jsonschema_is_wrong() {
    // Objects are equal whatever their key order (JSON Schema's equality); jsonschema (with
    // serde_json's preserve_order) finds these unique.
    let s = json!({"uniqueItems": true});
    let v = json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}]);
    assert!(!compile(&s).is_valid(&v));
    assert!(jsonschema::draft202012::new(&s).unwrap().is_valid(&v));
}

#[test]
fn differential_against_jsonschema() {
    let table = table();
    assert!(table.len() >= 80, "{}", table.len());
    let mut valid = 0;
    for (schema, instance) in &table {
        let theirs = jsonschema::draft202012::new(schema)
            .unwrap_or_else(|e| panic!("{schema}: {e}"))
            .is_valid(instance);
        let ours = compile(schema);
        assert_eq!(ours.is_valid(instance), theirs, "{schema} on {instance}");
        let mut out = Vec::new();
        ours.errors(instance, &[], &mut out);
        assert_eq!(out.is_empty(), theirs, "{schema} on {instance}: {out:?}");
        valid += usize::from(theirs);
    }
    // Both verdicts are well represented.
    assert!(
        valid > 20 && table.len() - valid > 20,
        "{valid} of {}",
        table.len()
    );
}
