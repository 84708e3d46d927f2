//! ZEP 9 extension names and node names.

/// The form of a well-formed extension name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameForm {
    /// A registered ("raw") name: no dot (`bytes`, `vlen-utf8`).
    Short,
    /// A dotted `vendor.name` (`numcodecs.zlib`, `numpy.datetime64`).
    Dotted,
    /// A URI (`https://…`, `tag:…`).
    Uri,
}

/// The form of an extension name, or why it has none. Raw names start with a letter and go on
/// with letters, digits, `_`, `-` and `.` (ZEP 9 asks registered names for lower case; the
/// registry itself has some upper-case names, so case is not checked). URIs are `scheme:rest`.
pub(crate) fn name_form(name: &str) -> Result<NameForm, String> {
    if name.is_empty() {
        return Err("an extension name must not be empty".into());
    }
    if is_uri(name) {
        return Ok(NameForm::Uri);
    }
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !first_ok || !rest_ok || name.ends_with('.') || name.contains("..") {
        return Err(format!(
            "'{}' is not a valid extension name: use a registered name (a letter, then letters, \
             digits, '_', '-', '.'), a dotted 'vendor.name', or a URI",
            name.chars().take(60).collect::<String>()
        ));
    }
    Ok(if name.contains('.') {
        NameForm::Dotted
    } else {
        NameForm::Short
    })
}

fn is_uri(name: &str) -> bool {
    let Some((scheme, rest)) = name.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !rest.is_empty()
        && !rest.chars().any(char::is_whitespace)
}

/// Short names registered in zarr-extensions (and the core spec) beyond those zom implements.
/// Used only for the strict-mode "unregistered short name" warning.
const REGISTERED_SHORT: &[&str] = &[
    // chunk grids and key encodings
    "regular",
    "rectilinear",
    "default",
    "v2",
    "fanout",
    "prefix",
    "suffix",
    "template",
    // codecs
    "arrow-ipc",
    "bitround",
    "blosc",
    "bytes",
    "cast_value",
    "crc32c",
    "gzip",
    "jpeg",
    "jpegxl",
    "label_multiset",
    "lzw",
    "n5_default",
    "n5_varlen",
    "nanovdb",
    "offset",
    "optional",
    "packbits",
    "pad",
    "reshape",
    "scale_offset",
    "sharding_indexed",
    "singleton_dim",
    "transpose",
    "vlen-bytes",
    "vlen-ndarray",
    "vlen-utf8",
    "zfp",
    "zstd",
    // data types not all implemented by zom
    "binary_fixed_point",
    "bytes",
    "complex_bfloat16",
    "complex_float16",
    "complex_float32",
    "complex_float64",
    "string",
    "struct",
];

/// Whether a short name is registered (zarr-extensions) or known to zom as a data type.
pub(crate) fn is_registered_short(name: &str) -> bool {
    REGISTERED_SHORT.contains(&name) || crate::dtype::DataType::is_known_v3_name(name)
}

/// Why a node (member) name is invalid, per the v3 core spec: not empty, no '/', not only
/// periods, not starting with "__" (reserved).
pub(crate) fn node_name_error(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a node name must not be empty".into());
    }
    if name.contains('/') {
        return Some(format!("node name '{name}' must not contain '/'"));
    }
    if name.chars().all(|c| c == '.') {
        return Some(format!(
            "node name '{name}' must not consist only of periods"
        ));
    }
    if name.starts_with("__") {
        return Some(format!(
            "node name '{name}' must not start with '__' (reserved)"
        ));
    }
    None
}

/// Whether a node name keeps to the characters the spec recommends (`a-z A-Z 0-9 - _ .`).
pub(crate) fn node_name_recommended(name: &str) -> bool {
    name.chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}
