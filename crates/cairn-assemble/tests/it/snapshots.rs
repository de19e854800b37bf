//! The three output formats for a fixed set of hits.

use cairn_assemble::{Format, Level};

use crate::fixtures::{request, run};

#[test]
fn markdown() {
    let a = run(&request(2000));
    insta::assert_snapshot!(a.block);
}

#[test]
fn markdown_tight_budget_mixes_levels() {
    let a = run(&request(260));
    insta::assert_snapshot!(a.block);
}

#[test]
fn markdown_l2() {
    let mut req = request(2000);
    req.options.max_level = Level::L2;
    req.options.snippet_cap = 60;
    insta::assert_snapshot!(run(&req).block);
}

#[test]
fn xml() {
    let mut req = request(2000);
    req.options.format = Format::Xml;
    insta::assert_snapshot!(run(&req).block);
}

#[test]
fn json() {
    let mut req = request(2000);
    req.options.format = Format::Json;
    let a = run(&req);
    let value: serde_json::Value = serde_json::from_str(&a.output()).unwrap();
    insta::assert_json_snapshot!(value);
}

#[test]
fn json_empty() {
    let mut req = request(2000);
    req.topic.clear();
    req.options.format = Format::Json;
    let value: serde_json::Value = serde_json::from_str(&run(&req).output()).unwrap();
    insta::assert_json_snapshot!(value);
}
