//! The virtual chunk containers a repository declares in its configuration (spec version 2:
//! the repo info file's `config`, FlexBuffers; spec version 1: `config.yaml`), and which
//! virtual chunk URLs they admit.

use super::flexbuffers;
use super::yaml::{self, Node, Yaml};
use crate::error::{ErrorCode, Result, ZomError};
use crate::limits::{Limit, Limits, MAX_JSON_DEPTH};
use crate::store::wire::url::{public_object_url, s3_bucket_key, S3Endpoint};
use std::collections::BTreeMap;

/// The key of a spec version 1 repository's configuration.
pub const CONFIG_KEY: &str = "config.yaml";

/// The start of a virtual chunk location relative to a named container (`vcc://NAME/…`).
pub(crate) const RELATIVE_SCHEME: &str = "vcc://";

/// The configuration's entry holding the containers.
const ENTRY: &str = "virtual_chunk_containers";

/// Where a Tigris container that names no endpoint is reached (icechunk's default).
const TIGRIS_ENDPOINT: &str = "https://t3.storage.dev";

/// The longest text of a container's S3 options read (a region, an endpoint URL).
const MAX_OPTION_BYTES: usize = 2048;

/// The longest store kind name read (icechunk's are at most 17 bytes).
const MAX_KIND_BYTES: usize = 64;

/// The kind of store a virtual chunk container is, as icechunk names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ContainerStore {
    /// Amazon S3 (`s3`).
    S3,
    /// An S3-compatible store at its own endpoint (`s3_compatible`).
    S3Compatible,
    /// Tigris (`tigris`).
    Tigris,
    /// Google Cloud Storage (`gcs`).
    Gcs,
    /// Azure Blob Storage (`azure`).
    Azure,
    /// HTTP(S) servers (`http`).
    Http,
    /// A local file system (`local_file_system`).
    LocalFileSystem,
    /// Memory (`in_memory`): never holds virtual chunks.
    InMemory,
    /// A kind this reader does not know, by its name.
    Other(String),
}

impl ContainerStore {
    /// The kind named `name` (icechunk's names, as above).
    pub fn from_name(name: &str) -> ContainerStore {
        match name {
            "s3" => ContainerStore::S3,
            "s3_compatible" => ContainerStore::S3Compatible,
            "tigris" => ContainerStore::Tigris,
            "gcs" => ContainerStore::Gcs,
            "azure" => ContainerStore::Azure,
            "http" => ContainerStore::Http,
            "local_file_system" => ContainerStore::LocalFileSystem,
            "in_memory" => ContainerStore::InMemory,
            other => ContainerStore::Other(other.to_string()),
        }
    }

    /// Its name as icechunk writes it.
    pub fn name(&self) -> &str {
        match self {
            ContainerStore::S3 => "s3",
            ContainerStore::S3Compatible => "s3_compatible",
            ContainerStore::Tigris => "tigris",
            ContainerStore::Gcs => "gcs",
            ContainerStore::Azure => "azure",
            ContainerStore::Http => "http",
            ContainerStore::LocalFileSystem => "local_file_system",
            ContainerStore::InMemory => "in_memory",
            ContainerStore::Other(name) => name,
        }
    }

    /// Whether icechunk lets a container of this kind hold URLs of `scheme` (lowercase).
    fn serves(&self, scheme: &str) -> bool {
        use ContainerStore::*;
        matches!(
            (scheme, self),
            ("s3", S3 | S3Compatible | Tigris)
                | ("gcs" | "gs", Gcs)
                | ("az" | "azure" | "abfs", Azure)
                | ("tigris", Tigris)
                | ("http" | "https", Http)
                | ("file", LocalFileSystem)
        )
    }
}

/// A place virtual chunks may be read from: every URL that starts with its prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VirtualChunkContainer {
    url_prefix: String,
    name: Option<String>,
    store: ContainerStore,
    endpoint: S3Endpoint,
}

impl VirtualChunkContainer {
    /// The container of the URLs under `url_prefix` (a `/` is added when it does not end in
    /// one), in a store of kind `store`. Refused as icechunk refuses it: a prefix that is not
    /// `scheme://…`, whose scheme the kind does not serve, without a host (or, for `file`,
    /// a path), or with `.` or `..` segments.
    pub fn new(url_prefix: &str, store: ContainerStore) -> Result<VirtualChunkContainer> {
        let url_prefix = match url_prefix.ends_with('/') {
            true => url_prefix.to_string(),
            false => format!("{url_prefix}/"),
        };
        let refuse = |why: &str| {
            Err(ZomError::invalid_argument(format!(
                "icechunk: a virtual chunk container at '{url_prefix}' ({}): {why}",
                store.name()
            )))
        };
        let split = url_prefix.find(':').map(|at| url_prefix.split_at(at));
        let Some((scheme, rest)) = split.and_then(|(s, r)| Some((s, r.strip_prefix("://")?)))
        else {
            return refuse("not an absolute URL");
        };
        let valid_scheme = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
        let scheme = scheme.to_ascii_lowercase();
        if !valid_scheme || !store.serves(&scheme) {
            return refuse("a URL scheme its kind of store does not serve");
        }
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        if scheme == "file" {
            if host.is_empty() && path.is_empty() {
                return refuse("no path");
            }
        } else if host.is_empty() {
            return refuse("no host");
        }
        if path.split('/').any(|s| s == "." || s == "..") {
            return refuse("a '.' or '..' segment");
        }
        Ok(VirtualChunkContainer {
            url_prefix,
            name: None,
            store,
            endpoint: S3Endpoint::default(),
        })
    }

    /// The same container, its S3 objects reached at `endpoint` (the region, endpoint URL and
    /// addressing style of its store's options).
    pub fn with_endpoint(mut self, endpoint: S3Endpoint) -> VirtualChunkContainer {
        self.endpoint = endpoint;
        self
    }

    /// Where its S3 objects are reached (S3, S3-compatible and Tigris containers).
    pub fn endpoint(&self) -> &S3Endpoint {
        &self.endpoint
    }

    /// The HTTP(S) URL a virtual chunk's object at `url` (in this container) is fetched from,
    /// as icechunk reaches it: an S3 object at the container's endpoint (its region, its own
    /// `endpoint_url` — Tigris' when a Tigris container names none —, path style when it asks
    /// for it); any other as [`public_object_url`] says. `None` when zom cannot fetch it (an
    /// endpoint that is not an http(s) URL included).
    pub fn object_url(&self, url: &str) -> Option<String> {
        let s3 = matches!(
            self.store,
            ContainerStore::S3 | ContainerStore::S3Compatible | ContainerStore::Tigris
        );
        match s3_bucket_key(url).filter(|_| s3) {
            Some((bucket, key)) if self.store == ContainerStore::Tigris => {
                let mut endpoint = self.endpoint.clone();
                endpoint
                    .endpoint_url
                    .get_or_insert_with(|| TIGRIS_ENDPOINT.to_string());
                endpoint.object_url(bucket, key)
            }
            Some((bucket, key)) => self.endpoint.object_url(bucket, key),
            None => public_object_url(url),
        }
    }

    /// The same container, named (virtual chunk locations `vcc://NAME/…` are relative to it).
    pub fn with_name(mut self, name: &str) -> Result<VirtualChunkContainer> {
        if name.is_empty() || name.contains('/') {
            return Err(ZomError::invalid_argument(format!(
                "icechunk: '{name}' is not a virtual chunk container name (empty, or with a '/')"
            )));
        }
        self.name = Some(name.to_string());
        Ok(self)
    }

    /// The URL prefix, ending in `/`.
    pub fn url_prefix(&self) -> &str {
        &self.url_prefix
    }

    /// Its name, when it has one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The kind of store it is.
    pub fn store(&self) -> &ContainerStore {
        &self.store
    }

    /// Whether `url` is under the prefix, read as written: it starts with the prefix, and the
    /// rest has no part a URL parser would change or resolve (a `.` or `..` segment, written
    /// or percent-encoded, a `\`, a control character), so that no reader of the URL is led
    /// out of the prefix.
    pub fn contains(&self, url: &str) -> bool {
        let Some(rest) = url.strip_prefix(self.url_prefix.as_str()) else {
            return false;
        };
        if rest.chars().any(|c| c == '\\' || c.is_control()) {
            return false;
        }
        let path = rest.split(['?', '#']).next().unwrap_or_default();
        !path.split('/').any(is_dot_segment)
    }
}

/// A path segment that URL parsers resolve: `.` or `..`, any dot written `%2e` or `%2E`.
fn is_dot_segment(segment: &str) -> bool {
    let s = segment.to_ascii_lowercase();
    matches!(s.as_str(), "." | ".." | "%2e" | ".%2e" | "%2e." | "%2e%2e")
}

/// A container as a configuration declares it: prefix, name, kind, S3 endpoint.
type Found = (String, Option<String>, ContainerStore, S3Endpoint);

/// The containers of a parsed configuration, sorted by prefix, each prefix once (the last
/// of a prefix written twice), those icechunk ignores (see [`VirtualChunkContainer::new`])
/// left out.
fn finish(found: Vec<Found>) -> Vec<VirtualChunkContainer> {
    let mut out: Vec<VirtualChunkContainer> = Vec::new();
    for (prefix, name, store, endpoint) in found {
        let Ok(container) = VirtualChunkContainer::new(&prefix, store) else {
            continue;
        };
        let container = container.with_endpoint(endpoint);
        let container = match name {
            Some(name) => match container.with_name(&name) {
                Ok(named) => named,
                Err(_) => continue,
            },
            None => container,
        };
        out.push(container);
    }
    sort_containers(&mut out);
    out
}

/// Sorts `containers` by prefix, keeping the last of each prefix. Through a map of prefix
/// to index, the map of `String` to JSON value that the module has anyway (a sort, or a map
/// of another value type, is more code per element type in the WebAssembly module), so that
/// a prefix given any number of times costs one map entry.
pub(crate) fn sort_containers(containers: &mut Vec<VirtualChunkContainer>) {
    let mut last: BTreeMap<String, serde_json::Value> = BTreeMap::new();
    for (i, c) in containers.iter().enumerate() {
        last.insert(c.url_prefix.clone(), serde_json::Value::from(i as u64));
    }
    let mut slots: Vec<Option<VirtualChunkContainer>> = containers.drain(..).map(Some).collect();
    for i in last.values().filter_map(serde_json::Value::as_u64) {
        if let Some(c) = slots.get_mut(i as usize).and_then(Option::take) {
            containers.push(c);
        }
    }
}

/// What the parsed containers may hold at most: as many as `max_nodes`, their prefixes and
/// names `max_document_bytes` together.
struct Budget<'l> {
    limits: &'l Limits,
    count: u64,
    bytes: u64,
}

impl Budget<'_> {
    /// Counts one more container of `bytes` bytes of text, before it is copied out.
    fn take(&mut self, bytes: usize) -> Result<()> {
        self.count += 1;
        self.bytes = self.bytes.saturating_add(bytes as u64);
        let what = "the number of virtual chunk containers";
        self.limits.check(Limit::Nodes, self.count, what)?;
        let what = "the bytes of the virtual chunk containers' prefixes and names";
        self.limits.check(Limit::DocumentBytes, self.bytes, what)
    }
}

/// The kind name of a store whose name is too long or not UTF-8.
const UNREADABLE_KIND: &str = "?";

/// The kind named by `bytes`, read only when short.
fn kind_name(bytes: &[u8]) -> &str {
    match bytes.len() <= MAX_KIND_BYTES {
        true => std::str::from_utf8(bytes).unwrap_or(UNREADABLE_KIND),
        false => UNREADABLE_KIND,
    }
}

fn config_error(what: impl std::fmt::Display) -> ZomError {
    super::corrupt(format!("the repository configuration: {what}"))
}

/// The virtual chunk containers of a spec version 2 repository's configuration (the repo info
/// file's `config`, FlexBuffers), sorted by prefix; those icechunk ignores (see
/// [`VirtualChunkContainer::new`]) left out.
pub fn containers_of_repo_config(
    bytes: &[u8],
    limits: &Limits,
) -> Result<Vec<VirtualChunkContainer>> {
    let root = flexbuffers::Value::root(bytes)?;
    let Some(root) = root.map()? else {
        return Err(config_error(format!("{}, not a map", root.type_name())));
    };
    let Some(entry) = root.get(ENTRY)? else {
        return Ok(Vec::new());
    };
    if entry.is_null() {
        return Ok(Vec::new());
    }
    let Some(map) = entry.map()? else {
        return Err(config_error(format!("'{ENTRY}' is {}", entry.type_name())));
    };
    let mut budget = Budget {
        limits,
        count: 0,
        bytes: 0,
    };
    let mut found = Vec::new();
    for i in 0..map.len() {
        let value = map.value(i)?;
        let container = value
            .map()?
            .ok_or_else(|| config_error(format!("a container is {}", value.type_name())))?;
        let text = |field: &str| -> Result<Option<&[u8]>> {
            match container.get(field)? {
                None => Ok(None),
                Some(v) if v.is_null() => Ok(None),
                Some(v) => v.string_bytes()?.map(Some).ok_or_else(|| {
                    config_error(format!("a container's '{field}' is {}", v.type_name()))
                }),
            }
        };
        let prefix =
            text("url_prefix")?.ok_or_else(|| config_error("a container has no 'url_prefix'"))?;
        let name = text("name")?;
        budget.take(prefix.len() + name.map_or(0, <[u8]>::len))?;
        let utf8 = |b: &[u8]| {
            std::str::from_utf8(b)
                .map(str::to_string)
                .map_err(|_| config_error("a container's text is not UTF-8"))
        };
        let mut endpoint = S3Endpoint::default();
        let store = match container.get("store")? {
            Some(store) => match (store.string_bytes()?, store.map()?) {
                (Some(unit), _) => ContainerStore::from_name(kind_name(unit)),
                (None, Some(one)) if one.len() == 1 => {
                    let kind = one.short_key(0, MAX_KIND_BYTES)?.unwrap_or(UNREADABLE_KIND);
                    if let Some(options) = one.value(0)?.map()? {
                        endpoint = s3_endpoint_of_map(&options)?;
                    }
                    ContainerStore::from_name(kind)
                }
                _ => {
                    return Err(config_error(format!(
                        "a container's 'store' is {}",
                        store.type_name()
                    )))
                }
            },
            None => return Err(config_error("a container has no 'store'")),
        };
        found.push((utf8(prefix)?, name.map(utf8).transpose()?, store, endpoint));
    }
    Ok(finish(found))
}

/// The S3 options that say where objects are (`region`, `endpoint_url`, `force_path_style`)
/// of a store's FlexBuffers options; absent, null or of another type: not set.
fn s3_endpoint_of_map(options: &flexbuffers::Map<'_>) -> Result<S3Endpoint> {
    let text = |field: &str| -> Result<Option<String>> {
        let Some(value) = options.get(field)? else {
            return Ok(None);
        };
        Ok(value
            .string_bytes()?
            .filter(|b| b.len() <= MAX_OPTION_BYTES)
            .and_then(|b| std::str::from_utf8(b).ok())
            .map(str::to_string))
    };
    let force_path_style = match options.get("force_path_style")? {
        Some(value) => value.boolean()?.unwrap_or(false),
        None => false,
    };
    Ok(S3Endpoint {
        region: text("region")?,
        endpoint_url: text("endpoint_url")?,
        force_path_style,
    })
}

/// The same, of a store's YAML options.
fn s3_endpoint_of_yaml(options: &Node) -> S3Endpoint {
    let text = |field: &str| match options.get(field).map(|n| &n.value) {
        Some(Yaml::Scalar(s)) if s.len() <= MAX_OPTION_BYTES && s.as_str() != "null" => {
            Some(s.to_string())
        }
        _ => None,
    };
    S3Endpoint {
        region: text("region"),
        endpoint_url: text("endpoint_url"),
        force_path_style: text("force_path_style").as_deref() == Some("true"),
    }
}

/// The virtual chunk containers of a spec version 1 repository's `config.yaml`, sorted by
/// prefix; those icechunk ignores (see [`VirtualChunkContainer::new`]) left out.
pub fn containers_of_config_yaml(
    bytes: &[u8],
    limits: &Limits,
) -> Result<Vec<VirtualChunkContainer>> {
    let at = |e: ZomError| e.at_key(CONFIG_KEY);
    limits
        .check(
            Limit::DocumentBytes,
            bytes.len() as u64,
            "config.yaml's size in bytes",
        )
        .map_err(at)?;
    let text =
        std::str::from_utf8(bytes).map_err(|_| at(config_error("config.yaml is not UTF-8")))?;
    let depth = limits.max_json_depth.min(MAX_JSON_DEPTH) as usize;
    let Some(entry) = yaml::top_level(text, ENTRY, depth, limits.max_nodes)? else {
        return Ok(Vec::new());
    };
    let entries = match &entry.value {
        Yaml::Null => return Ok(Vec::new()),
        Yaml::Map(entries) => entries,
        _ => return Err(at(config_error(format!("'{ENTRY}' is not a mapping")))),
    };
    let mut found = Vec::new();
    for (key, container) in entries {
        let field = |name: &str| -> Result<Option<&str>> {
            match container.get(name).map(|n| &n.value) {
                None | Some(Yaml::Null) => Ok(None),
                Some(Yaml::Scalar(s)) => Ok(Some(s)),
                Some(_) => Err(at(config_error(format!(
                    "the container '{key}' has a '{name}' that is not a scalar"
                )))),
            }
        };
        let prefix = field("url_prefix")?.ok_or_else(|| {
            at(config_error(format!(
                "the container '{key}' has no 'url_prefix'"
            )))
        })?;
        let endpoint = container
            .get("store")
            .map(s3_endpoint_of_yaml)
            .unwrap_or_default();
        let store = match container.get("store") {
            Some(Node { tag: Some(tag), .. }) => ContainerStore::from_name(tag),
            Some(Node {
                tag: None,
                value: Yaml::Scalar(unit),
            }) => ContainerStore::from_name(unit),
            _ => {
                let message = format!("the container '{key}' has no 'store' kind");
                return Err(at(config_error(message)));
            }
        };
        found.push((
            prefix.to_string(),
            field("name")?.map(str::to_string),
            store,
            endpoint,
        ));
    }
    Ok(finish(found))
}

/// The error of a virtual chunk at `url` that no container admits.
pub(crate) fn outside(url: &str, containers: &[VirtualChunkContainer]) -> ZomError {
    if let Some(rest) = url.strip_prefix(RELATIVE_SCHEME) {
        let name = rest.split('/').next().unwrap_or_default();
        return ZomError::new(
            ErrorCode::InvalidMetadata,
            format!("icechunk: a virtual chunk at '{url}', relative to a container named '{name}', which is not known (a store made without the repository's containers, or a repository that declares none of that name)"),
        );
    }
    let declared = match containers.len() {
        0 => "no virtual chunk container is declared".to_string(),
        n => {
            let list: Vec<&str> = containers.iter().take(4).map(|c| c.url_prefix()).collect();
            let more = if n > 4 { ", …" } else { "" };
            format!("the containers are {}{more}", list.join(", "))
        }
    };
    ZomError::new(
        ErrorCode::InvalidMetadata,
        format!("icechunk: a virtual chunk at '{url}', outside every virtual chunk container ({declared})"),
    )
}

/// The container holding `url`: the one of the longest prefix (every prefix ends in `/`, so
/// the candidates are the URL up to each of its slashes).
pub(crate) fn container_of<'c>(
    url: &str,
    containers: &'c [VirtualChunkContainer],
) -> Option<&'c VirtualChunkContainer> {
    url.rmatch_indices('/').find_map(|(slash, _)| {
        let end = slash + 1;
        let candidate = &url[..end];
        let at = containers
            .binary_search_by(|c| c.url_prefix.as_str().cmp(candidate))
            .ok()?;
        Some(&containers[at]).filter(|c| c.contains(url))
    })
}
