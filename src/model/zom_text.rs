//! The ZOM JSON of a node written straight to text: what `to_compact(&node.to_value())`
//! gives, without building the `Value` tree first (building it and dropping it cost as much as
//! reading the documents). `Node::into_value` stays the definition of the form;
//! `zom_text_tests.rs` checks that both give the same text.

use super::named::NamedConfig;
use super::node::{is_zom_key, Array, ArrayV2, Group, Node, ZarrFormat};
use super::v3::ArrayMetadataV3;
use serde_json::{Map, Value};
use zom_json::text::{append, append_map, append_str, Written};

/// The compact ZOM JSON text of `node` (members included) and what writing it noticed: an
/// integer a JS number cannot hold, the nesting depth.
pub fn write_zom(node: &Node) -> (Vec<u8>, Written) {
    let mut w = Writer {
        out: Vec::new(),
        written: Written::default(),
    };
    w.node(node, 1);
    (w.out, w.written)
}

struct Writer {
    out: Vec<u8>,
    written: Written,
}

impl Writer {
    /// Notes what writing a value at nesting `depth` noticed.
    fn noticed(&mut self, written: Written, depth: usize) {
        self.written.unsafe_integer |= written.unsafe_integer;
        let depth = depth.saturating_add(written.depth);
        self.written.depth = self.written.depth.max(depth);
    }

    fn value(&mut self, value: &Value, depth: usize) {
        let written = append(&mut self.out, value);
        self.noticed(written, depth);
    }

    fn map(&mut self, map: &Map<String, Value>, depth: usize) {
        let written = append_map(&mut self.out, map);
        self.noticed(written, depth);
    }

    /// `"key":` after a comma unless it is the object's first.
    fn key(&mut self, first: &mut bool, key: &str) {
        if !std::mem::take(first) {
            self.out.push(b',');
        }
        append_str(&mut self.out, key);
        self.out.push(b':');
    }

    /// A node's object, opened at nesting `depth`.
    fn node(&mut self, node: &Node, depth: usize) {
        self.written.depth = self.written.depth.max(depth);
        match node {
            Node::Group(g) => self.group(g, depth),
            Node::Array(Array::V3(a)) => self.v3_array(a, depth),
            Node::Array(Array::V2(a)) => self.v2_array(a, depth),
        }
    }

    fn group(&mut self, g: &Group, depth: usize) {
        let format = g.format();
        let mut first = true;
        self.out.push(b'{');
        self.key(&mut first, "zarr_format");
        self.value(&format.number().into(), depth);
        if format == ZarrFormat::V3 {
            self.key(&mut first, "node_type");
            self.out.extend_from_slice(b"\"group\"");
        }
        self.key(&mut first, "attributes");
        self.map(&g.attributes, depth);
        if let Some(ext) = &g.extensions {
            self.key(&mut first, "extensions");
            self.named_list(ext, depth);
        }
        for (k, v) in &g.extra {
            let kind_key = format == ZarrFormat::V2 && k == "shape";
            if !kind_key && !is_zom_key(k) {
                self.key(&mut first, k);
                self.value(v, depth);
            }
        }
        self.key(&mut first, "members");
        self.out.push(b'{');
        let mut first_member = true;
        for (name, member) in &g.members {
            self.key(&mut first_member, name);
            self.node(member, depth.saturating_add(2));
        }
        self.out.extend_from_slice(b"}}");
    }

    fn v3_array(&mut self, a: &ArrayMetadataV3, depth: usize) {
        let mut first = true;
        self.out.push(b'{');
        self.key(&mut first, "zarr_format");
        self.value(&a.zarr_format.into(), depth);
        self.key(&mut first, "node_type");
        append_str(&mut self.out, &a.node_type);
        self.key(&mut first, "attributes");
        match &a.attributes {
            Some(attributes) => self.map(attributes, depth),
            None => self.out.extend_from_slice(b"{}"),
        }
        self.key(&mut first, "shape");
        self.out.push(b'[');
        for (i, &n) in a.shape.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.value(&n.into(), depth + 1);
        }
        self.out.push(b']');
        self.key(&mut first, "data_type");
        self.named(&a.data_type, depth);
        self.key(&mut first, "chunk_grid");
        self.named(&a.chunk_grid, depth);
        self.key(&mut first, "chunk_key_encoding");
        self.named(&a.chunk_key_encoding, depth);
        self.key(&mut first, "fill_value");
        self.value(&a.fill_value, depth);
        self.key(&mut first, "codecs");
        self.named_list(&a.codecs, depth);
        self.key(&mut first, "storage_transformers");
        self.named_list(a.storage_transformers.as_deref().unwrap_or(&[]), depth);
        self.key(&mut first, "dimension_names");
        match &a.dimension_names {
            Some(Some(names)) => {
                self.out.push(b'[');
                for (i, name) in names.iter().enumerate() {
                    if i > 0 {
                        self.out.push(b',');
                    }
                    match name {
                        Some(name) => append_str(&mut self.out, name),
                        None => self.out.extend_from_slice(b"null"),
                    }
                }
                self.out.push(b']');
            }
            _ => self.out.extend_from_slice(b"null"),
        }
        if let Some(ext) = &a.extensions {
            self.key(&mut first, "extensions");
            self.named_list(ext, depth);
        }
        for (k, v) in &a.extra {
            if !is_zom_key(k) {
                self.key(&mut first, k);
                self.value(v, depth);
            }
        }
        self.out.push(b'}');
    }

    fn v2_array(&mut self, a: &ArrayV2, depth: usize) {
        let mut first = true;
        self.out.push(b'{');
        self.key(&mut first, "zarr_format");
        self.out.push(b'2');
        self.key(&mut first, "attributes");
        self.map(&a.attributes, depth);
        let mut metadata = a.metadata.clone();
        // The v2 spec's default; pydantic-zarr (through zarr-python) writes it out.
        metadata
            .dimension_separator
            .get_or_insert_with(|| ".".into());
        if let Value::Object(doc) = metadata.to_value() {
            for (k, v) in &doc {
                if !is_zom_key(k) {
                    self.key(&mut first, k);
                    self.value(v, depth);
                }
            }
        }
        self.out.push(b'}');
    }

    /// A list of named configurations, as a value at nesting `depth`.
    fn named_list(&mut self, list: &[NamedConfig], depth: usize) {
        self.out.push(b'[');
        for (i, named) in list.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            self.named(named, depth + 1);
        }
        self.out.push(b']');
        self.written.depth = self.written.depth.max(depth + 1);
    }

    /// A named configuration (`NamedConfig::into_value`'s form), as a value at nesting `depth`.
    fn named(&mut self, named: &NamedConfig, depth: usize) {
        if named.short_form && named.configuration.is_none() && named.must_understand.is_none() {
            append_str(&mut self.out, &named.name);
            return;
        }
        self.written.depth = self.written.depth.max(depth + 1);
        let mut first = true;
        self.out.push(b'{');
        self.key(&mut first, "name");
        append_str(&mut self.out, &named.name);
        if let Some(configuration) = &named.configuration {
            self.key(&mut first, "configuration");
            self.map(configuration, depth + 1);
        }
        if let Some(must_understand) = named.must_understand {
            self.key(&mut first, "must_understand");
            self.out
                .extend_from_slice(if must_understand { b"true" } else { b"false" });
        }
        for (k, v) in &named.extra {
            self.key(&mut first, k);
            self.value(v, depth + 1);
        }
        self.out.push(b'}');
    }
}
