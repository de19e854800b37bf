//! The graph viewer: one HTML page holding Cytoscape.js, the page's style and scripts, and (for the
//! self-contained file `cairn graph view --out` writes) the data it shows.
//!
//! The daemon serves the page at `/viewer` with no data in it: the page reads the token from its URL
//! fragment (`/viewer#token=...`, never sent to the server), keeps it in `sessionStorage` and calls the
//! API (`/v1/graph/export`, `/v1/graph/diff`, `/v1/sessions`, `/v1/search`) with it, so the API's
//! token and scope rules decide what it shows. The file carries its data inline as JSON script
//! elements and works from `file://` with no daemon.
//!
//! Every part is embedded at build time (`include_str!`): the page has no build step and Cytoscape is
//! vendored (`scripts/vendor-cytoscape.sh`), so building Cairn needs no Node.

use std::sync::LazyLock;

use axum::http::header;
use axum::response::{IntoResponse, Response};

/// The page, with `<!--cairn:...-->` slots for the parts below.
const PAGE: &str = include_str!("../assets/viewer/index.html");
/// The page's style.
const STYLE: &str = include_str!("../assets/viewer/viewer.css");
/// Cytoscape.js, minified; it opens with its MIT licence (also `assets/viewer/vendor/cytoscape.LICENSE`),
/// which so travels with every copy of the page.
const CYTOSCAPE: &str = include_str!("../assets/viewer/vendor/cytoscape.min.js");
/// The page's scripts, in load order: shared state and data loading, then one file per view.
const SCRIPTS: [&str; 5] = [
    include_str!("../assets/viewer/data.js"),
    include_str!("../assets/viewer/graph.js"),
    include_str!("../assets/viewer/turns.js"),
    include_str!("../assets/viewer/diff.js"),
    include_str!("../assets/viewer/main.js"),
];

/// The id of the script element holding the inlined graph export.
pub const EXPORT_ID: &str = "cairn-export";
/// The id of the script element holding the older export of an inlined diff.
pub const OLD_ID: &str = "cairn-old";
/// The id of the script element holding the inlined diff (the JSON of `cairn graph diff --json`).
pub const DIFF_ID: &str = "cairn-diff";
/// The id of the script element holding an inlined `cairn context --trace` receipt.
pub const TRACE_ID: &str = "cairn-trace";

/// The data a self-contained viewer file shows, each part a JSON document.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inlined<'a> {
    /// The graph export (`cairn graph export`'s bytes).
    pub export: &'a str,
    /// The older export and the diff from it to `export`, for the diff view.
    pub diff: Option<(&'a str, &'a str)>,
    /// A trace receipt (`cairn context --trace FILE`), for the turn inspector.
    pub trace: Option<&'a str>,
}

/// The page the daemon serves at `/viewer`: no data, everything comes from the API.
pub fn served_page() -> String {
    assemble("")
}

/// What the page may do in a browser: its own inline scripts and style, canvas images, API calls to
/// the origin that served it; nothing else (no other site, no frames around it).
const POLICY: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
                      img-src data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; \
                      frame-ancestors 'none'";

/// `GET /viewer`: the page, built once.
pub(crate) async fn serve() -> Response {
    static PAGE: LazyLock<String> = LazyLock::new(served_page);
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, POLICY),
            (header::CACHE_CONTROL, "no-store"),
            (header::REFERRER_POLICY, "no-referrer"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        PAGE.as_str(),
    )
        .into_response()
}

/// The self-contained page: the viewer with `data` inlined.
pub fn standalone_page(data: &Inlined<'_>) -> String {
    let mut blocks = json_block(EXPORT_ID, data.export);
    if let Some((old, diff)) = data.diff {
        blocks.push_str(&json_block(OLD_ID, old));
        blocks.push_str(&json_block(DIFF_ID, diff));
    }
    if let Some(trace) = data.trace {
        blocks.push_str(&json_block(TRACE_ID, trace));
    }
    assemble(&blocks)
}

/// The JSON text of the script element `id` in a page [`standalone_page`] wrote, as written there
/// (`\u003c` stands for `<`, which JSON parsers read back as the same string).
pub fn inlined_json<'p>(page: &'p str, id: &str) -> Option<&'p str> {
    let open = format!("<script type=\"application/json\" id=\"{id}\">");
    let start = page.find(&open)? + open.len();
    let len = page[start..].find("</script>")?;
    Some(&page[start..start + len])
}

fn assemble(data: &str) -> String {
    let mut scripts = String::new();
    for s in SCRIPTS {
        scripts.push_str(s);
        scripts.push('\n');
    }
    PAGE.replacen("<!--cairn:style-->", STYLE, 1)
        .replacen("<!--cairn:data-->", data, 1)
        .replacen("<!--cairn:cytoscape-->", CYTOSCAPE, 1)
        .replacen("<!--cairn:scripts-->", &scripts, 1)
}

/// A JSON document as an inert script element. `<` is written `\u003c` (JSON allows the escape, and
/// `<` can only occur inside strings), so no text in the data can close the element.
fn json_block(id: &str, json: &str) -> String {
    format!(
        "<script type=\"application/json\" id=\"{id}\">{}</script>\n",
        json.trim().replace('<', "\\u003c")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inlined_data_cannot_close_its_element_and_reads_back() {
        let export = r#"{"nodes":[{"title":"</script><script>alert(1)</script>"}]}"#;
        let page = standalone_page(&Inlined { export, diff: None, trace: Some("{\"v\":1}") });
        assert!(!page.contains("</script><script>alert(1)"));
        let back: serde_json::Value = serde_json::from_str(inlined_json(&page, EXPORT_ID).unwrap()).unwrap();
        assert_eq!(back, serde_json::from_str::<serde_json::Value>(export).unwrap());
        assert_eq!(inlined_json(&page, TRACE_ID), Some("{\"v\":1}"));
        assert_eq!(inlined_json(&page, DIFF_ID), None);
    }

    #[test]
    fn the_served_page_has_every_part_and_no_data() {
        let page = served_page();
        assert!(!page.contains("<!--cairn:"), "every slot is filled");
        assert!(page.contains("The Cytoscape Consortium"), "the licence travels with the code");
        assert_eq!(inlined_json(&page, EXPORT_ID), None);
    }
}
