//! Bootstrap files: the host's list filtered to the session kind's set, files of that set the host did
//! not list added from the workspace, a generated [`CONTEXT_FILE`] with recent memory in scope, and,
//! when remote sources are configured, a generated [`RAG_CONTEXT_FILE`] with what they hold about that
//! recent memory (not for sub-agents: their host drops extra files). With the tiered bootstrap switched
//! off (a marker in the data dir, see `cairn_aci::backup`), the host's list comes back unchanged.

use std::path::Path;

use cairn_core::{Scope, now_ms};
use cairn_route::{SessionInfo, SessionType};

use crate::api::{BootstrapFile, BootstrapResult, RagReceipt, SessionView};
use crate::context::assemble_for;
use crate::open::Engine;

/// Name of the generated session context file.
pub const CONTEXT_FILE: &str = "CAIRN_CONTEXT.md";

/// Name of the generated file of remote context.
pub const RAG_CONTEXT_FILE: &str = "RAG_CONTEXT.md";

/// Characters of one entry's text in [`RAG_CONTEXT_FILE`].
const RAG_LINE_CHARS: usize = 300;

impl Engine {
    /// Filters the host's bootstrap files to the session kind's set, adds files of that set that the
    /// host did not list (read from `workspace_dir`), and adds a generated [`CONTEXT_FILE`] with recent
    /// memory in the session's scope.
    pub fn bootstrap(
        &self,
        session_key: &str,
        files: Vec<BootstrapFile>,
        workspace_dir: Option<&Path>,
    ) -> BootstrapResult {
        let info = self.classify(session_key);
        let session = SessionView::of(&info, None);
        // The tiered bootstrap switched off (`cairn workspace tiered off`, `rollback --bulk`): the host's
        // own list, unchanged; its host then injects in bulk, as without Cairn.
        if cairn_aci::backup::is_bulk(&self.cfg.data_dir) {
            return BootstrapResult {
                files,
                added: Vec::new(),
                removed: Vec::new(),
                session,
                rag_context: None,
            };
        }
        let wanted = &info.files;
        let matches =
            |f: &BootstrapFile, w: &str| f.name == w || f.path == w || f.path.ends_with(&format!("/{w}"));
        let mut out = Vec::new();
        let mut removed = Vec::new();
        let mut added = Vec::new();
        for f in files {
            if f.name == CONTEXT_FILE || f.name == RAG_CONTEXT_FILE {
                continue;
            }
            if wanted.iter().any(|w| matches(&f, w)) {
                out.push(f);
            } else {
                removed.push(f.path);
            }
        }
        for w in wanted {
            if out.iter().any(|f| matches(f, w)) {
                continue;
            }
            let Some(dir) = workspace_dir else { continue };
            let path = dir.join(w);
            // Only files inside the workspace, and only ones that exist.
            if w.contains("..") || Path::new(w).is_absolute() || path.symlink_metadata().is_err() {
                continue;
            }
            // Never through a link that leads out of the workspace.
            if !inside(dir, &path) {
                tracing::warn!("bootstrap file `{}` leads out of the workspace; not read", path.display());
                continue;
            }
            if let Ok(content) = std::fs::read_to_string(&path) {
                let p = path.to_string_lossy().into_owned();
                added.push(p.clone());
                let name = Path::new(w).file_name().map_or(w.clone(), |n| n.to_string_lossy().into_owned());
                out.push(BootstrapFile { name, path: p, content: Some(content), missing: false });
            }
        }
        let (content, recent) = self.session_context_file(&info, session.scope());
        let path_of = |name: &str| match workspace_dir {
            Some(d) => d.join(name).to_string_lossy().into_owned(),
            None => name.to_owned(),
        };
        let path = path_of(CONTEXT_FILE);
        added.push(path.clone());
        out.push(BootstrapFile {
            name: CONTEXT_FILE.to_owned(),
            path,
            content: Some(content),
            missing: false,
        });
        let rag_context = (!self.sources.is_empty()).then(|| {
            let (content, receipt) = self.rag_context_file(&info, session.scope(), &recent);
            if let Some(content) = content {
                let path = path_of(RAG_CONTEXT_FILE);
                added.push(path.clone());
                out.push(BootstrapFile {
                    name: RAG_CONTEXT_FILE.to_owned(),
                    path,
                    content: Some(content),
                    missing: false,
                });
            }
            receipt
        });
        BootstrapResult { files: out, added, removed, session, rag_context }
    }

    /// [`RAG_CONTEXT_FILE`]'s content (none when there is nothing to say) and its receipt: the remote
    /// sources asked, side by side under their deadlines, about the titles of the session's recent
    /// memory; their entities, then their facts and relations, each list capped, under a token cap.
    fn rag_context_file(
        &self,
        info: &SessionInfo,
        scope: Scope,
        recent: &[String],
    ) -> (Option<String>, RagReceipt) {
        let mut receipt = RagReceipt::default();
        if info.session_type == SessionType::Subagent {
            receipt.reason = Some("a sub-agent session: its host drops extra bootstrap files".into());
            return (None, receipt);
        }
        let query = cairn_core::prefix_words(&recent.join("; "), 1000).to_owned();
        if query.trim().is_empty() {
            receipt.reason = Some("no recent memory in scope to ask the sources about".into());
            return (None, receipt);
        }
        let c = &self.cfg.context;
        let mut req = self.context_request(&query, scope, c.rag_budget, now_ms());
        req.candidates = c.rag_entities.max(c.rag_relations);
        let pending = self.remote_start(&req);
        let answers = Self::remote_collect(pending, &req.scope, false);
        let mut entities: Vec<(String, String)> = Vec::new();
        let mut relations: Vec<(String, String)> = Vec::new();
        let mut seen: Vec<String> = Vec::new();
        for (lane, hits) in answers {
            receipt.lanes.push(lane);
            for h in hits {
                let what = h.chunk_id.split(':').nth(2).unwrap_or_default();
                let norm: String = h.text.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ");
                if seen.contains(&norm) {
                    receipt.left_out += 1;
                    continue;
                }
                seen.push(norm);
                let text: String = h.text.split_whitespace().collect::<Vec<_>>().join(" ");
                let text: String = text.chars().take(RAG_LINE_CHARS).collect();
                let date = if h.created_at == cairn_core::UNDATED {
                    String::new()
                } else {
                    format!(
                        "[{}] ",
                        jiff::Timestamp::from_millisecond(h.created_at)
                            .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date().to_string())
                            .unwrap_or_default()
                    )
                };
                match what {
                    "entity" if entities.len() < c.rag_entities => {
                        entities.push((
                            h.chunk_id.clone(),
                            format!("- **{}**: {text} *({})*", h.title, h.chunk_id),
                        ));
                    }
                    "fact" | "relation" | "memory" if relations.len() < c.rag_relations => {
                        let title = if what == "relation" { format!("{}: ", h.title) } else { String::new() };
                        relations
                            .push((h.chunk_id.clone(), format!("- {date}{title}{text} *({})*", h.chunk_id)));
                    }
                    _ => receipt.left_out += 1,
                }
            }
        }
        if entities.is_empty() && relations.is_empty() {
            receipt.reason = Some("the sources gave nothing".into());
            return (None, receipt);
        }
        let names: Vec<String> = receipt
            .lanes
            .iter()
            .filter(|l| l.status == cairn_core::LaneStatus::Ok)
            .map(|l| l.name.trim_start_matches(crate::remote::REMOTE_LANE).to_owned())
            .collect();
        let mut s = format!(
            "# Remote context\n\nGenerated by Cairn at session start from the memory services ({}), about \
             what this session's recent memory mentions. Ask them for more with the `graphiti_search`, \
             `lightrag_query` or `memory_service_query` tools.\n",
            names.join(", ")
        );
        let mut tokens = self.tokenizer.count(&s);
        for (heading, list, ids) in [
            ("Entities", entities, &mut receipt.entities),
            ("Facts and relations", relations, &mut receipt.relations),
        ] {
            if list.is_empty() {
                continue;
            }
            let head = format!("\n## {heading}\n\n");
            let head_tokens = self.tokenizer.count(&head);
            let mut section = String::new();
            let mut section_tokens = head_tokens;
            for (id, line) in list {
                let line = format!("{line}\n");
                let t = self.tokenizer.count(&line);
                if tokens + section_tokens + t > c.rag_budget {
                    receipt.left_out += 1;
                    continue;
                }
                section.push_str(&line);
                section_tokens += t;
                ids.push(id);
            }
            if !section.is_empty() {
                s.push_str(&head);
                s.push_str(&section);
                tokens += section_tokens;
            }
        }
        if receipt.entities.is_empty() && receipt.relations.is_empty() {
            receipt.reason = Some("nothing fit the token cap".into());
            return (None, receipt);
        }
        receipt.tokens = self.tokenizer.count(&s);
        receipt.written = true;
        (Some(s), receipt)
    }

    /// [`CONTEXT_FILE`]'s content, and the titles of the recent memory it shows.
    fn session_context_file(&self, info: &SessionInfo, scope: Scope) -> (String, Vec<String>) {
        let mut options = self.cfg.context.assemble_options();
        options.require_topic = false;
        let mut req = self.context_request("", scope, self.cfg.bootstrap_budget, now_ms());
        req.options = options;
        req.recent = 10;
        // The session's own bootstrap files come whole beside this one.
        req.bootstrapped = info.files.clone();
        let recalled = self.gather(&req);
        let recent: Vec<String> = recalled.recent.iter().map(|h| h.title.clone()).collect();
        let assembly = assemble_for(&req, recalled);
        let kind = info.session_type.as_str().to_ascii_lowercase();
        let mut s = format!(
            "# Session context\n\nGenerated by Cairn for this session ({kind}). Recent memory in scope; \
             ask with the `cairn_search` tool for more.\n\n"
        );
        if assembly.block.is_empty() {
            s.push_str("No memory in scope yet.\n");
        } else {
            s.push_str(&assembly.block);
            s.push('\n');
        }
        if info.session_type == SessionType::Fallback {
            let who = if info.audience_shared { "a shared audience" } else { "the owner's" };
            s.push_str(&format!("\n(The session key is in no known format; it was treated as {who}.)\n"));
        }
        (s, recent)
    }
}

/// Whether `path`, with every link resolved, is inside `root` (also resolved). A path that does not
/// exist is not.
fn inside(root: &Path, path: &Path) -> bool {
    match (root.canonicalize(), path.canonicalize()) {
        (Ok(root), Ok(path)) => path.starts_with(root),
        _ => false,
    }
}
