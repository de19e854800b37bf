//! Rendering of the `<pack-context ...>` block.

use std::fmt::Write;

use crate::schema::PackFile;

/// `vc_memo_drafting` → `Vc Memo Drafting` (when the pack has no `title`).
fn title_of(file: &PackFile) -> String {
    if let Some(t) = file.title.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        return t.to_owned();
    }
    file.name
        .split(['_', '-', ' '])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect::<String>()).unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Pack text must not be able to close the block early.
fn sanitize(text: &str) -> String {
    let t = text.trim();
    if t.contains("pack-context") { t.replace("</pack-context", "&lt;/pack-context") } else { t.to_owned() }
}

fn push_para(out: &mut String, text: &str) {
    let t = sanitize(text);
    if !t.is_empty() {
        out.push_str(&t);
        out.push_str("\n\n");
    }
}

/// The primary pack: title, description, domain context, compliance rules, steps.
pub(crate) fn primary_section(file: &PackFile) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Active Workflow: {}\n", sanitize(&title_of(file)));
    push_para(&mut out, &file.description);
    push_para(&mut out, &file.domain_context);
    if let Some(c) = file.compliance_rules.as_deref().filter(|c| !c.trim().is_empty()) {
        out.push_str("### Compliance Rules\n");
        push_para(&mut out, c);
    }
    if !file.steps.is_empty() {
        out.push_str("### Steps\n");
        for (i, s) in file.steps.iter().enumerate() {
            let _ = write!(out, "{}. `{}`", i + 1, sanitize(&s.id));
            if let Some(d) = s.description.as_deref().filter(|d| !d.trim().is_empty()) {
                let _ = write!(out, ": {}", sanitize(d));
            }
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

/// A composed pack: title (and mode), description, domain context, compliance rules.
pub(crate) fn composed_section(file: &PackFile, mode: Option<&str>) -> String {
    let mut out = String::new();
    let _ = write!(out, "### Composition: {}", sanitize(&title_of(file)));
    if let Some(m) = mode {
        let _ = write!(out, " ({m})");
    }
    out.push_str("\n\n");
    push_para(&mut out, &file.description);
    push_para(&mut out, &file.domain_context);
    if let Some(c) = file.compliance_rules.as_deref().filter(|c| !c.trim().is_empty()) {
        out.push_str("Compliance rules:\n");
        push_para(&mut out, c);
    }
    out
}

fn attr(value: &str) -> String {
    value.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The whole block.
pub(crate) fn block(
    intent: &str,
    primary_pack: &str,
    scope: &str,
    primary: &str,
    composed: &[&str],
) -> String {
    let mut out =
        String::with_capacity(primary.len() + composed.iter().map(|c| c.len()).sum::<usize>() + 128);
    let _ = writeln!(
        out,
        "<pack-context intent=\"{}\" primary-pack=\"{}\" scope=\"{}\">",
        attr(intent),
        attr(primary_pack),
        attr(scope)
    );
    out.push_str(primary);
    for c in composed {
        out.push_str(c);
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out.push_str("</pack-context>");
    out
}
