//! Sub-agent runs: which session spawned which. A child's turns get their task's context from the
//! parent through this record, and its captured turns are linked back to the parent. With a shared
//! store attached the records live there (`pg/subagents.rs`), so every host knows a child's parent.

use cairn_core::Millis;
use rusqlite::{OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use crate::{Result, SqliteStore};

/// One spawned sub-agent session and its parent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubagentLink {
    /// The child's session key.
    pub child: String,
    /// The session that spawned it.
    pub parent: String,
    /// The host's run id of the child.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The agent the child runs as.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The host's label for the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The host's spawn mode (`run`, `session`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The parent's last turn ids when the child was spawned, oldest first.
    #[serde(default)]
    pub parent_turns: Vec<String>,
    /// The intent whose pack the parent had active at spawn time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_intent: Option<String>,
    /// The child's task: its first prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// When the spawn was recorded (ms since the epoch).
    pub spawned_at: Millis,
    /// When the child ended, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<Millis>,
    /// How it ended (`ok`, `error`, `timeout`, `killed`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// The host's reason for the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The error the child ended with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How a sub-agent run ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubagentEnd {
    /// When (ms since the epoch).
    pub at: Millis,
    /// `ok`, `error`, `timeout`, `killed`, …
    pub outcome: Option<String>,
    /// The host's reason.
    pub reason: Option<String>,
    /// The error, if any.
    pub error: Option<String>,
}

const COLUMNS: &str = "child_key, parent_key, run_id, agent_id, label, mode, parent_turns, parent_intent, task, \
                       spawned_at, ended_at, outcome, reason, error";

fn decode(r: &Row<'_>) -> rusqlite::Result<SubagentLink> {
    let turns: String = r.get(6)?;
    Ok(SubagentLink {
        child: r.get(0)?,
        parent: r.get(1)?,
        run_id: r.get(2)?,
        agent_id: r.get(3)?,
        label: r.get(4)?,
        mode: r.get(5)?,
        parent_turns: serde_json::from_str(&turns).unwrap_or_default(),
        parent_intent: r.get(7)?,
        task: r.get(8)?,
        spawned_at: r.get(9)?,
        ended_at: r.get(10)?,
        outcome: r.get(11)?,
        reason: r.get(12)?,
        error: r.get(13)?,
    })
}

impl SqliteStore {
    /// Records a spawn. A second spawn event for the same child replaces the first (the host may
    /// repeat one after a restart); a task already seen is kept.
    pub fn put_subagent(&mut self, link: &SubagentLink) -> Result<()> {
        if let Some(shared) = &mut self.shared {
            return shared.put_subagent(link);
        }
        let turns = serde_json::to_string(&link.parent_turns).unwrap_or_else(|_| "[]".into());
        self.conn.execute(
            "INSERT INTO subagents (child_key, parent_key, run_id, agent_id, label, mode, parent_turns, \
             parent_intent, task, spawned_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) \
             ON CONFLICT (child_key) DO UPDATE SET parent_key = excluded.parent_key, run_id = excluded.run_id, \
             agent_id = excluded.agent_id, label = excluded.label, mode = excluded.mode, \
             parent_turns = excluded.parent_turns, parent_intent = excluded.parent_intent, \
             task = coalesce(subagents.task, excluded.task)",
            params![
                link.child,
                link.parent,
                link.run_id,
                link.agent_id,
                link.label,
                link.mode,
                turns,
                link.parent_intent,
                link.task,
                link.spawned_at
            ],
        )?;
        Ok(())
    }

    /// The spawn record of `child`, if one was made.
    pub fn subagent(&self, child: &str) -> Result<Option<SubagentLink>> {
        if let Some(shared) = &self.shared {
            return shared.subagent(child);
        }
        Ok(self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM subagents WHERE child_key = ?1"))?
            .query_row([child], decode)
            .optional()?)
    }

    /// Every spawn record, oldest first.
    pub fn subagents(&self) -> Result<Vec<SubagentLink>> {
        if let Some(shared) = &self.shared {
            return shared.subagents();
        }
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {COLUMNS} FROM subagents ORDER BY spawned_at, child_key"))?;
        let rows = stmt.query_map([], decode)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Remembers the child's task (its first prompt) unless one is already known. Returns whether it
    /// was set.
    pub fn set_subagent_task(&mut self, child: &str, task: &str) -> Result<bool> {
        if let Some(shared) = &mut self.shared {
            return shared.set_subagent_task(child, task);
        }
        let n = self.conn.execute(
            "UPDATE subagents SET task = ?2 WHERE child_key = ?1 AND task IS NULL",
            params![child, task],
        )?;
        Ok(n > 0)
    }

    /// Records how the child ended. Returns `false` when no spawn of it was recorded.
    pub fn end_subagent(&mut self, child: &str, end: &SubagentEnd) -> Result<bool> {
        if let Some(shared) = &mut self.shared {
            return shared.end_subagent(child, end);
        }
        let n = self.conn.execute(
            "UPDATE subagents SET ended_at = ?2, outcome = ?3, reason = ?4, error = ?5 WHERE child_key = ?1",
            params![child, end.at, end.outcome, end.reason, end.error],
        )?;
        Ok(n > 0)
    }

    /// Moves the spawn records this file holds to the attached shared store (kept here by a version
    /// that did not share them: a host serving the child without its record would take it for the
    /// owner's); how many.
    pub(crate) fn move_spawn_records(&mut self) -> Result<usize> {
        let Some(shared) = self.shared.as_mut() else { return Ok(0) };
        let local: Vec<SubagentLink> = {
            let mut stmt = self.conn.prepare_cached(&format!("SELECT {COLUMNS} FROM subagents"))?;
            let rows = stmt.query_map([], decode)?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        for link in &local {
            shared.put_subagent(link)?;
            if let Some(at) = link.ended_at {
                let end = SubagentEnd {
                    at,
                    outcome: link.outcome.clone(),
                    reason: link.reason.clone(),
                    error: link.error.clone(),
                };
                shared.end_subagent(&link.child, &end)?;
            }
            self.conn.execute("DELETE FROM subagents WHERE child_key = ?1", [&link.child])?;
        }
        Ok(local.len())
    }

    /// Drops the spawn record of `child` (forgetting its session). Returns whether there was one.
    pub fn remove_subagent(&mut self, child: &str) -> Result<bool> {
        if let Some(shared) = &mut self.shared {
            return shared.remove_subagent(child);
        }
        Ok(self.conn.execute("DELETE FROM subagents WHERE child_key = ?1", [child])? > 0)
    }

    /// The ids of the last `k` turns captured in `session_key` (`(turn id, item id)`), oldest first.
    pub fn last_turns(&self, session_key: &str, k: usize) -> Result<Vec<(String, String)>> {
        if let Some(shared) = &self.shared {
            return shared.last_turns(session_key, k);
        }
        let mut stmt = self.conn.prepare_cached(
            "SELECT turn_id, item_id FROM turns WHERE session_key = ?1 ORDER BY ts DESC, turn_id DESC LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![session_key, k as i64], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let mut out: Vec<(String, String)> = rows.collect::<rusqlite::Result<_>>()?;
        out.reverse();
        Ok(out)
    }

    /// Every session the store has captured turns of: `(key, turns, last seen)`.
    pub fn session_summaries(&self) -> Result<Vec<(String, u64, Millis)>> {
        if let Some(shared) = &self.shared {
            return shared.session_summaries();
        }
        let mut stmt =
            self.conn.prepare_cached("SELECT key, turns, last_seen FROM sessions ORDER BY last_seen, key")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64, r.get(2)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(child: &str, parent: &str) -> SubagentLink {
        SubagentLink {
            child: child.into(),
            parent: parent.into(),
            run_id: Some("r1".into()),
            parent_turns: vec!["t1".into(), "t2".into()],
            spawned_at: 10,
            ..Default::default()
        }
    }

    #[test]
    fn spawn_task_and_end_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = SqliteStore::open(&dir.path().join("s.db")).unwrap();
        let c = "agent:main:subagent:1";
        assert_eq!(s.subagent(c).unwrap(), None);
        s.put_subagent(&link(c, "agent:main:main")).unwrap();
        assert!(s.set_subagent_task(c, "find the vet").unwrap());
        assert!(!s.set_subagent_task(c, "a later prompt").unwrap(), "the first prompt is the task");
        // A repeated spawn event keeps the task.
        s.put_subagent(&link(c, "agent:main:main")).unwrap();
        let got = s.subagent(c).unwrap().unwrap();
        assert_eq!(got.task.as_deref(), Some("find the vet"));
        assert_eq!(got.parent_turns, ["t1", "t2"]);
        let end =
            SubagentEnd { at: 20, outcome: Some("error".into()), error: Some("boom".into()), reason: None };
        assert!(s.end_subagent(c, &end).unwrap());
        assert!(!s.end_subagent("agent:main:subagent:none", &end).unwrap());
        let got = s.subagent(c).unwrap().unwrap();
        assert_eq!(
            (got.ended_at, got.outcome.as_deref(), got.error.as_deref()),
            (Some(20), Some("error"), Some("boom"))
        );
        assert_eq!(s.subagents().unwrap().len(), 1);
        assert!(s.remove_subagent(c).unwrap());
        assert_eq!(s.subagent(c).unwrap(), None);
    }
}
