//! What the libraries report through `tracing`, shown the way the CLI shows everything else: one
//! `warning: …` or `error: …` line on stderr per event, nothing below warnings.

use std::fmt;

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::FmtContext;
use tracing_subscriber::fmt::format::{FormatEvent, FormatFields, Writer};
use tracing_subscriber::registry::LookupSpan;

/// `warning: message` / `error: message`.
struct Plain;

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, ctx: &FmtContext<'_, S, N>, mut w: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let label = match *event.metadata().level() {
            Level::ERROR => "error",
            Level::WARN => "warning",
            Level::INFO => "info",
            _ => "debug",
        };
        write!(w, "{label}: ")?;
        ctx.field_format().format_fields(w.by_ref(), event)?;
        writeln!(w)
    }
}

/// Installs the stderr logger for this process (warnings and errors).
pub(crate) fn init() {
    let _ = tracing_subscriber::fmt()
        .with_max_level(Level::WARN)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .event_format(Plain)
        .try_init();
}
