//! Invalid configs give clear errors naming file, field and line; reloads keep the last good config.

mod common;

use cairn_route::{Error, RouteConfig, Router, Severity, audit};
use common::*;

fn load_err(dir: &std::path::Path) -> Error {
    RouteConfig::load(dir).expect_err("config must be rejected")
}

fn invalid_issues(err: Error) -> Vec<cairn_route::Issue> {
    match err {
        Error::Invalid { issues } => issues,
        other => panic!("expected Error::Invalid, got {other:?}"),
    }
}

#[test]
fn example_config_loads_and_audits_clean() {
    RouteConfig::load(example_dir()).unwrap();
    let report = audit(example_dir());
    assert!(report.passed(), "{:#?}", report.findings);
    assert_eq!(report.rules, 5);
}

#[test]
fn bad_yaml_reports_the_line() {
    let tmp = copy_example();
    // Line 24 of the file gets a tab-indented, unclosed flow sequence.
    edit(&tmp.path().join("intent_rules.yaml"), "      - restaurants\n", "      - [restaurants\n");
    let err = load_err(tmp.path());
    let Error::Parse { path, line, message } = &err else { panic!("{err:?}") };
    assert!(path.ends_with("intent_rules.yaml"));
    assert!(line.is_some(), "{message}");
    let text = err.to_string();
    assert!(text.contains("intent_rules.yaml") && text.contains("line"), "{text}");
}

#[test]
fn unknown_key_names_field_and_line() {
    let tmp = copy_example();
    let path = tmp.path().join("intent_rules.yaml");
    edit(&path, "    pack_type: travel_itinerary\n", "    pack_type: travel_itinerary\n    keywordz: [x]\n");
    let err = load_err(tmp.path());
    let Error::Parse { line, message, .. } = &err else { panic!("{err:?}") };
    assert!(message.contains("keywordz"), "{message}");
    let expected_line =
        std::fs::read_to_string(&path).unwrap().lines().position(|l| l.contains("keywordz")).unwrap() + 1;
    assert_eq!(*line, Some(expected_line), "{message}");
}

#[test]
fn unknown_key_in_other_files() {
    for (file, from, to) in [
        ("pack_registry.yaml", "  - id: dining_recs\n", "  - id: dining_recs\n    colour: red\n"),
        ("consumer_profiles.yaml", "schema_version: 1\n", "schema_version: 1\nextra: true\n"),
        ("sessions.yaml", "  subagent: [SOUL.md]\n", "  subagent: [SOUL.md]\n  robot: [X.md]\n"),
        (
            "pack_composition_rules.yaml",
            "        required: false\n",
            "        required: false\n        when: now\n",
        ),
    ] {
        let tmp = copy_example();
        edit(&tmp.path().join(file), from, to);
        let err = load_err(tmp.path());
        assert!(
            matches!(&err, Error::Parse { path, line: Some(_), .. } if path.ends_with(file)),
            "{file}: {err:?}"
        );
    }
}

#[test]
fn bad_regex_names_rule_field_and_line() {
    let tmp = copy_example();
    let path = tmp.path().join("intent_rules.yaml");
    edit(&path, r"'\bfood hall\b'", r"'\bfood (hall'");
    let issues = invalid_issues(load_err(tmp.path()));
    assert_eq!(issues.len(), 1, "{issues:#?}");
    assert_eq!(issues[0].field, "rules[dining].entity_boosts[1].summary_pattern");
    let expected_line =
        std::fs::read_to_string(&path).unwrap().lines().position(|l| l.contains("food (hall")).unwrap() + 1;
    assert_eq!(issues[0].line, Some(expected_line));
    assert!(issues[0].message.contains("invalid regex"));
    // The audit reports the same problem and fails.
    let report = audit(tmp.path());
    assert!(!report.passed());
    assert!(
        report.findings.iter().any(|f| f.field.ends_with("summary_pattern") && f.severity == Severity::Error)
    );
}

#[test]
fn missing_pack_file() {
    let tmp = copy_example();
    std::fs::remove_file(tmp.path().join("packs/travel_itinerary.pack.yaml")).unwrap();
    let issues = invalid_issues(load_err(tmp.path()));
    assert_eq!(issues[0].field, "packs[travel_itinerary].path");
    assert!(issues[0].message.contains("not found"));
    assert!(issues[0].file.ends_with("pack_registry.yaml"));
    assert!(issues[0].line.is_some());
}

#[test]
fn missing_required_config_file() {
    let tmp = copy_example();
    std::fs::remove_file(tmp.path().join("consumer_profiles.yaml")).unwrap();
    assert!(matches!(load_err(tmp.path()), Error::MissingFile { .. }));
}

#[test]
fn path_escapes_are_rejected() {
    for bad in ["../outside.pack.yaml", "/etc/passwd", "packs/../../x.pack.yaml"] {
        let tmp = copy_example();
        edit(
            &tmp.path().join("pack_registry.yaml"),
            "path: packs/travel_itinerary.pack.yaml",
            &format!("path: {bad}"),
        );
        let issues = invalid_issues(load_err(tmp.path()));
        assert!(
            issues[0].message.contains("escapes") || issues[0].message.contains("relative"),
            "{bad}: {issues:?}"
        );
        assert_eq!(issues[0].field, "packs[travel_itinerary].path");
    }
}

#[cfg(unix)]
#[test]
fn symlink_escape_is_rejected() {
    let tmp = copy_example();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("evil.pack.yaml");
    std::fs::copy(tmp.path().join("packs/travel_itinerary.pack.yaml"), &target).unwrap();
    std::os::unix::fs::symlink(&target, tmp.path().join("packs/link.pack.yaml")).unwrap();
    edit(
        &tmp.path().join("pack_registry.yaml"),
        "path: packs/travel_itinerary.pack.yaml",
        "path: packs/link.pack.yaml",
    );
    let issues = invalid_issues(load_err(tmp.path()));
    assert!(issues[0].message.contains("outside"), "{issues:?}");
}

#[test]
fn semantic_problems_are_all_listed() {
    let tmp = copy_example();
    let rules = tmp.path().join("intent_rules.yaml");
    edit(&rules, "consumer_profile: trip_planner", "consumer_profile: nobody");
    edit(&rules, "suppresses: [deal_review]", "suppresses: [ghost_rule]");
    edit(&rules, "schema_version: 1", "schema_version: 2");
    edit(
        &tmp.path().join("consumer_profiles.yaml"),
        "primary_pack: deal_brief",
        "primary_pack: no_such_pack",
    );
    edit(&tmp.path().join("pack_composition_rules.yaml"), "primary_intent: dining", "primary_intent: eating");
    let issues = invalid_issues(load_err(tmp.path()));
    let fields: Vec<&str> = issues.iter().map(|i| i.field.as_str()).collect();
    for f in [
        "schema_version",
        "rules[travel].consumer_profile",
        "rules[dining].entity_boosts[0].suppresses",
        "profiles[deal_analyst].primary_pack",
        "rules[eating].primary_intent",
    ] {
        assert!(fields.contains(&f), "missing {f} in {fields:?}");
    }
    let text = Error::Invalid { issues }.to_string();
    assert!(text.contains("unknown consumer profile `nobody`"), "{text}");
}

#[test]
fn pack_file_problems() {
    let tmp = copy_example();
    edit(&tmp.path().join("packs/deal_brief.pack.yaml"), "workflow_id: deal_brief", "workflow: deal_brief");
    let issues = invalid_issues(load_err(tmp.path()));
    assert!(issues[0].file.ends_with("deal_brief.pack.yaml"));
    assert!(issues[0].message.contains("workflow"));
    assert!(issues[0].line.is_some());
}

#[test]
fn json_config_is_accepted_and_json_errors_have_lines() {
    let tmp = copy_example();
    let yaml = std::fs::read_to_string(tmp.path().join("intent_rules.yaml")).unwrap();
    let value: serde_json::Value = serde_yaml_ng::from_str(&yaml).unwrap();
    std::fs::remove_file(tmp.path().join("intent_rules.yaml")).unwrap();
    let json = serde_json::to_string_pretty(&value).unwrap();
    std::fs::write(tmp.path().join("intent_rules.json"), &json).unwrap();
    let r = Router::load(tmp.path()).unwrap();
    assert_eq!(decide_in(&r, "book a table", OWNER, &[]).intent.as_deref(), Some("dining"));
    std::fs::write(tmp.path().join("intent_rules.json"), json.replacen("\"rules\"", "\"rulez\"", 1)).unwrap();
    let err = load_err(tmp.path());
    assert!(
        matches!(&err, Error::Parse { line: Some(_), message, .. } if message.contains("rulez")),
        "{err:?}"
    );
}

#[test]
fn bad_weights_and_empty_keywords() {
    let tmp = copy_example();
    let rules = tmp.path().join("intent_rules.yaml");
    edit(&rules, "weight: 1.5", "weight: -1.5");
    edit(&rules, "keyword_weight: 1.0", "keyword_weight: 0");
    edit(&rules, "      - jet lag\n", "      - \"   \"\n");
    let issues = invalid_issues(load_err(tmp.path()));
    let fields: Vec<&str> = issues.iter().map(|i| i.field.as_str()).collect();
    assert!(fields.contains(&"rules[travel].entity_boosts[0].weight"), "{fields:?}");
    assert!(fields.contains(&"defaults.keyword_weight"), "{fields:?}");
    assert!(fields.contains(&"rules[travel].keywords[13]"), "{fields:?}");
}

#[test]
fn failed_reload_keeps_the_last_good_config() {
    let tmp = copy_example();
    let router = Router::load(tmp.path()).unwrap();
    assert_eq!(decide_in(&router, "book a table", OWNER, &[]).intent.as_deref(), Some("dining"));
    let rules = tmp.path().join("intent_rules.yaml");
    let good = std::fs::read_to_string(&rules).unwrap();
    // Broken YAML: reload fails, decisions continue on the old config.
    std::fs::write(&rules, "schema_version: 1\nrules: [\n").unwrap();
    assert!(matches!(router.reload(), Err(Error::Parse { .. })));
    assert_eq!(decide_in(&router, "book a table", OWNER, &[]).intent.as_deref(), Some("dining"));
    // Semantically invalid: same.
    std::fs::write(&rules, good.replace(r"'\bfood hall\b'", "'('")).unwrap();
    assert!(matches!(router.reload(), Err(Error::Invalid { .. })));
    assert_eq!(decide_in(&router, "book a table", OWNER, &[]).intent.as_deref(), Some("dining"));
    // A valid change is picked up.
    std::fs::write(&rules, good.replace("- book a table", "- grab a table")).unwrap();
    router.reload().unwrap();
    assert_eq!(decide_in(&router, "book a table", OWNER, &[]).intent, None);
    assert_eq!(decide_in(&router, "grab a table", OWNER, &[]).intent.as_deref(), Some("dining"));
}

#[test]
fn audit_flags_overlap_and_unknown_pack_types() {
    let tmp = copy_example();
    // travel gets 8 of dining's keywords → overlap.
    edit(
        &tmp.path().join("intent_rules.yaml"),
        "      - jet lag\n",
        "      - jet lag\n      - restaurant\n      - restaurants\n      - dinner\n      - lunch\n      - brunch\n      - bistro\n      - cuisine\n      - dessert\n",
    );
    edit(
        &tmp.path().join("pack_composition_rules.yaml"),
        "pack_type: content_strategy",
        "pack_type: content_plan",
    );
    let report = audit(tmp.path());
    assert!(!report.passed());
    let overlap: Vec<_> = report.findings.iter().filter(|f| f.check == "overlap").collect();
    assert_eq!(overlap.len(), 1, "{:#?}", report.findings);
    assert!(overlap[0].message.contains("`dining` and `travel`"));
    assert!(report.findings.iter().any(|f| f.check == "composition"
        && f.severity == Severity::Error
        && f.message.contains("content_plan")
        && f.line.is_some()));
    // Exactly 50 % is allowed: 1 shared of 2.
    let tmp = copy_example();
    let rules = tmp.path().join("intent_rules.yaml");
    let text = std::fs::read_to_string(&rules).unwrap();
    let text = text.replace(
        "    keywords:\n      - flight\n      - flights\n      - hotel\n      - itinerary\n      - trip\n      - airport\n      - layover\n      - passport\n      - visa\n      - boarding pass\n      - check-in\n      - train ticket\n      - packing list\n      - jet lag\n",
        "    keywords: [flight, dinner]\n",
    );
    std::fs::write(&rules, text).unwrap();
    assert!(audit(tmp.path()).passed(), "{:#?}", audit(tmp.path()).findings);
}

#[test]
fn audit_reports_load_errors() {
    let tmp = copy_example();
    std::fs::write(tmp.path().join("pack_registry.yaml"), "schema_version: 1\npacks:\n  - id: [\n").unwrap();
    let report = audit(tmp.path());
    assert!(!report.passed());
    assert_eq!(report.findings[0].check, "load");
    assert!(report.findings[0].line.is_some());
}
