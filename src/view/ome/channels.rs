//! An image's channels as a picture draws them: `omero` rendering settings, viewer defaults.

use super::{problem, Channel, Window, CYCLE, MAX_CHANNELS};
use crate::problem::{show, LocExt, LocStep, Problem, Severity};
use crate::view::Node;
use serde_json::{Map, Value};

/// The channels to draw: `omero.channels` where given, defaults elsewhere; as many as the
/// channel axis is long when that is known.
///
/// Checks: "Each channel MUST contain `color` — a string of 6 hex digits (RGB)" (0.5.1 and
/// later; 0.4's example shows the same form): error. The channel list is the "Array matching
/// the c dimension size" (a comment in the spec's example, not a MUST): another count is a
/// warning. A window whose start is after its end has no MUST against it but cannot be drawn
/// as written: a warning.
pub(super) fn read_channels(
    node: &Node,
    omero: Option<&Map<String, Value>>,
    loc: &[LocStep],
    has_channel_axis: bool,
    axis_len: Option<u64>,
    out: &mut Vec<Problem>,
) -> Vec<Channel> {
    let listed = omero
        .and_then(|o| o.get("channels"))
        .and_then(Value::as_array);
    let listed_len = listed.map(Vec::len);
    if let (Some(n), Some(c)) = (listed_len, axis_len) {
        if u64::try_from(n).ok() != Some(c) {
            let message = format!("omero lists {n} channels; the channel axis of level 0 has {c}");
            out.push(problem(
                node,
                loc.key("channels"),
                Severity::Warning,
                message,
            ));
        }
    }
    let count = match (axis_len, listed_len) {
        (Some(c), _) => usize::try_from(c).unwrap_or(MAX_CHANNELS),
        (None, Some(n)) => n,
        (None, None) if has_channel_axis => 0,
        (None, None) => 1,
    }
    .min(MAX_CHANNELS);
    let entries = listed.map(Vec::as_slice).unwrap_or_default();
    (0..count)
        .map(|i| {
            let entry = entries.get(i);
            let at = loc.key("channels").idx(i);
            read_channel(node, i, count, entry, omero.is_some(), &at, out)
        })
        .collect()
}

fn read_channel(
    node: &Node,
    index: usize,
    count: usize,
    entry: Option<&Value>,
    has_omero: bool,
    loc: &[LocStep],
    out: &mut Vec<Problem>,
) -> Channel {
    let get = |k: &str| entry.and_then(|e| e.get(k));
    let color = match get("color") {
        Some(Value::String(c)) if is_hex6(c) => Some(c.to_ascii_uppercase()),
        Some(Value::String(c)) => {
            let message = format!(
                "channel {index}'s color {} is not 6 hex digits (RRGGBB)",
                show(&Value::String(c.clone()))
            );
            out.push(problem(node, loc.key("color"), Severity::Error, message));
            None
        }
        _ => None,
    };
    let window = get("window").and_then(|w| {
        let n = |k: &str| w.get(k).and_then(Value::as_f64);
        Some(Window {
            start: n("start")?,
            end: n("end")?,
            min: n("min"),
            max: n("max"),
        })
    });
    if let Some(w) = &window {
        if w.start > w.end {
            let message = format!(
                "channel {index}'s window starts at {} after its end {}",
                w.start, w.end
            );
            out.push(problem(node, loc.key("window"), Severity::Warning, message));
        }
    }
    let flag = |k: &str, default: bool| get(k).and_then(Value::as_bool).unwrap_or(default);
    Channel {
        index,
        label: get("label")
            .and_then(Value::as_str)
            .map_or_else(|| format!("Channel {index}"), str::to_string),
        color: color.unwrap_or_else(|| default_color(index, count).to_string()),
        window,
        active: flag("active", has_omero || index < 6),
        inverted: flag("inverted", false),
        coefficient: get("coefficient").and_then(Value::as_f64).unwrap_or(1.0),
        family: get("family")
            .and_then(Value::as_str)
            .unwrap_or("linear")
            .to_string(),
    }
}

fn is_hex6(s: &str) -> bool {
    s.len() == 6 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The colour viewers give channel `index` of `count` when metadata names none.
fn default_color(index: usize, count: usize) -> &'static str {
    match (count, index) {
        (1, _) => "FFFFFF",
        (2, 0) => "FF00FF",
        (2, _) => "00FF00",
        (3, 0) => "FF0000",
        (3, 1) => "00FF00",
        (3, _) => "0000FF",
        _ => CYCLE[index % CYCLE.len()],
    }
}

#[cfg(test)]
mod tests {
    use super::{default_color, is_hex6};

    #[test]
    fn default_colours_are_the_viewers() {
        assert_eq!(default_color(0, 1), "FFFFFF");
        assert_eq!(
            [default_color(0, 2), default_color(1, 2)],
            ["FF00FF", "00FF00"]
        );
        let three: Vec<_> = (0..3).map(|i| default_color(i, 3)).collect();
        assert_eq!(three, ["FF0000", "00FF00", "0000FF"]);
        let seven: Vec<_> = (0..7).map(|i| default_color(i, 7)).collect();
        assert_eq!(
            seven,
            ["00FFFF", "FFFF00", "FF00FF", "FF0000", "00FF00", "0000FF", "00FFFF"]
        );
    }

    #[test]
    fn colours_are_six_hex_digits() {
        assert!(is_hex6("00ff0A"));
        assert!(!is_hex6("0xff00"));
        assert!(!is_hex6("FFFFFFFF"));
        assert!(!is_hex6("ééé"));
    }
}
