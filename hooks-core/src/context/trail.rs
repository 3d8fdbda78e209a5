//! What hooks did to a context during dispatch: rewrites, injected context,
//! failures that were let through, and approvals.

use std::fmt::Write as _;
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::Serialize;
use smallvec::SmallVec;

use super::fingerprint::Print;
use crate::name::HookName;
use crate::verdict::HookError;
use crate::verdict::{ApprovalRecord, Denial};
use crate::verdict::{EndSession, MessageLevel, NO_NOTES, Notes, UserMessage, Warning};

/// The default budget for context injected by all hooks of one event: 10 KiB.
pub const DEFAULT_INJECTION_BUDGET: usize = 10 * 1024;

/// One rewrite: a hook changed a field (borrowing it mutably and leaving it
/// as it was is not a rewrite).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rewrite {
    /// The hook that rewrote.
    pub hook: HookName,
    /// What it rewrote: `args`, `result`, `prompt`, `tools` or `params`.
    pub field: &'static str,
}

/// A hook failure that was let through (the hook's failure policy was `continue`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookFailure {
    /// The hook that failed.
    pub hook: HookName,
    /// How it failed.
    pub error: HookError,
}

/// Context that hooks injected for the model: all of it concatenated in
/// hook order ([`text`](Self::text)), and piece by piece with its role and
/// lifetime ([`pieces`](Self::pieces)) for loops that place them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Injected {
    text: String,
    pieces: Vec<InjectedPiece>,
    budget: usize,
    /// Bytes of hook text kept so far, which is what the budget bounds.
    used: usize,
    cuts: Vec<InjectionCut>,
}

/// Who the model should read injected context as coming from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The system (instructions the model trusts): the default.
    #[default]
    System,
    /// The user (a message in the user's turn).
    User,
}

/// Context for the model, as a hook hands it to `ctx.inject(..)`: text, a
/// [`Role`], and whether it is ephemeral (for this model call only, not kept
/// in the conversation). Plain text is system context, kept.
///
/// ```
/// use hooks_core::prelude::*;
/// use hooks_core::Role;
///
/// #[user_prompt_submit]
/// fn today(ctx: &mut UserPromptSubmit) {
///     ctx.inject("Answer in English.");                               // system, kept
///     ctx.inject(Injection::user("(It is Monday.)").ephemeral());     // user, this call only
///     let pieces = ctx.injected().pieces();
///     assert_eq!((pieces[1].role, pieces[1].ephemeral), (Role::User, true));
/// }
/// # fn main() {}
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Injection<'a> {
    text: std::borrow::Cow<'a, str>,
    role: Role,
    ephemeral: bool,
}

impl<'a> Injection<'a> {
    /// System context, kept in the conversation.
    pub fn system(text: impl Into<std::borrow::Cow<'a, str>>) -> Self {
        Injection {
            text: text.into(),
            role: Role::System,
            ephemeral: false,
        }
    }

    /// Context in the user's voice, kept in the conversation.
    pub fn user(text: impl Into<std::borrow::Cow<'a, str>>) -> Self {
        Injection {
            role: Role::User,
            ..Injection::system(text)
        }
    }

    /// For this model call only: not kept in the conversation.
    #[must_use]
    pub fn ephemeral(mut self) -> Self {
        self.ephemeral = true;
        self
    }
}

impl<'a> From<&'a str> for Injection<'a> {
    fn from(text: &'a str) -> Self {
        Injection::system(text)
    }
}

impl<'a> From<&'a String> for Injection<'a> {
    fn from(text: &'a String) -> Self {
        Injection::system(text.as_str())
    }
}

impl From<String> for Injection<'_> {
    fn from(text: String) -> Self {
        Injection::system(text)
    }
}

impl<'a> From<std::borrow::Cow<'a, str>> for Injection<'a> {
    fn from(text: std::borrow::Cow<'a, str>) -> Self {
        Injection::system(text)
    }
}

/// One hook's injected context, as kept (after the budget).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InjectedPiece {
    /// The hook that injected it (`None` when the integration did).
    pub hook: Option<HookName>,
    /// Whom the model should read it as coming from.
    pub role: Role,
    /// For this model call only.
    pub ephemeral: bool,
    /// The text kept.
    pub text: String,
}

/// Text a hook offered that did not fit the budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InjectionCut {
    /// The hook whose text was cut, if it was injected during dispatch.
    pub hook: Option<HookName>,
    /// Bytes the hook offered.
    pub offered: usize,
    /// Bytes that were kept (cut on a character boundary).
    pub kept: usize,
}

impl Default for Injected {
    fn default() -> Self {
        Injected {
            text: String::new(),
            pieces: Vec::new(),
            budget: DEFAULT_INJECTION_BUDGET,
            used: 0,
            cuts: Vec::new(),
        }
    }
}

impl Injected {
    /// All injected text, in hook order, separated by newlines. When text was
    /// cut, a one-line notice per cut follows it (outside the budget), so the
    /// model knows something is missing.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether any hook injected anything.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Each hook's piece, with its role and whether it is ephemeral, in
    /// hook order: what a loop that places context by role reads.
    pub fn pieces(&self) -> &[InjectedPiece] {
        &self.pieces
    }

    /// The pieces to keep in the conversation (not ephemeral), joined by newlines.
    pub fn kept_text(&self) -> String {
        self.joined(|piece| !piece.ephemeral)
    }

    /// The pieces for this model call only, joined by newlines.
    pub fn ephemeral_text(&self) -> String {
        self.joined(|piece| piece.ephemeral)
    }

    fn joined(&self, keep: impl Fn(&InjectedPiece) -> bool) -> String {
        self.pieces
            .iter()
            .filter(|piece| keep(piece))
            .map(|piece| piece.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// What was cut to fit the budget.
    pub fn cuts(&self) -> &[InjectionCut] {
        &self.cuts
    }

    /// The budget in bytes.
    pub fn budget(&self) -> usize {
        self.budget
    }

    pub(crate) fn set_budget(&mut self, budget: usize) {
        self.budget = budget;
    }

    fn push(&mut self, hook: Option<&HookName>, injection: &Injection<'_>) {
        let piece: &str = &injection.text;
        if piece.is_empty() {
            return;
        }
        let separator = usize::from(self.used > 0);
        let room = self.budget.saturating_sub(self.used + separator);
        let kept = floor_char_boundary(piece, room);
        if kept > 0 {
            if separator == 1 {
                self.text.push('\n');
            }
            self.text.push_str(&piece[..kept]);
            self.used += separator + kept;
            self.pieces.push(InjectedPiece {
                hook: hook.cloned(),
                role: injection.role,
                ephemeral: injection.ephemeral,
                text: piece[..kept].to_owned(),
            });
        }
        if kept < piece.len() {
            let cut = InjectionCut {
                hook: hook.cloned(),
                offered: piece.len(),
                kept,
            };
            let by = cut.hook.as_ref().map_or("", HookName::as_str);
            tracing::warn!(
                hook = by,
                offered = cut.offered,
                kept = cut.kept,
                budget = self.budget,
                "injected context cut to fit the budget"
            );
            if !self.text.is_empty() {
                self.text.push('\n');
            }
            let _ = write!(
                self.text,
                "[hooks: {} of {} bytes of context from `{by}` were cut to fit the {}-byte budget]",
                cut.offered - cut.kept,
                cut.offered,
                self.budget
            );
            self.cuts.push(cut);
        }
    }
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

#[doc(hidden)]
#[derive(Debug, Default)]
pub struct Trail {
    current: Option<HookName>,
    /// Inline room for four: most dispatches record fewer, and allocating
    /// for provenance would make every rewriting dispatch pay for a `Vec`.
    rewrites: SmallVec<[Rewrite; 4]>,
    injected: Injected,
    failures: Vec<HookFailure>,
    approvals: Vec<ApprovalRecord>,
    /// How the chain ended, while observers run.
    denial: Option<Denial>,
    /// Fields the running hook borrowed mutably: settled into rewrites (if
    /// changed) when the hook is done.
    touched: SmallVec<[&'static str; 2]>,
    /// Each borrowed field's print as the last hook left it (or as it was
    /// when first borrowed), valid until the dispatch ends (only hooks
    /// change fields meanwhile, and each change goes through a touch): a
    /// hook's change is told against it, and the next hook to borrow the
    /// field starts from it rather than walking the field again.
    known: SmallVec<[(&'static str, Print); 2]>,
    /// How many rewrites there were when the running hook started.
    run_start: usize,
    /// Behind a lock so that hooks holding a shared reference (guards,
    /// observers) can warn; uncontended, and never locked on the fast path.
    /// Boxed, and only once something is noted: most dispatches note
    /// nothing, and every context carries this field (an integration
    /// builds, moves and drops a context per call).
    notes: Mutex<Option<Box<Notes>>>,
}

/// What hooks noted, locked for reading: empty notes when nothing was noted.
pub(crate) struct NotesRef<'a>(MutexGuard<'a, Option<Box<Notes>>>);

impl std::ops::Deref for NotesRef<'_> {
    type Target = Notes;

    fn deref(&self) -> &Notes {
        self.0.as_deref().unwrap_or(&NO_NOTES)
    }
}

/// What a shadow hook's run must not leave behind, taken before it runs.
pub(crate) struct TrailMark {
    rewrites: usize,
    injected: Injected,
    messages: usize,
}

impl Trail {
    pub(crate) fn set_denial(&mut self, denial: Option<Denial>) {
        self.denial = denial;
    }

    pub(crate) fn take_denial(&mut self) -> Option<Denial> {
        self.denial.take()
    }

    pub(crate) fn denial(&self) -> Option<&Denial> {
        self.denial.as_ref()
    }

    /// The hook running now, if any.
    pub(crate) fn current(&self) -> Option<&HookName> {
        self.current.as_ref()
    }

    #[inline]
    pub(crate) fn enter(&mut self, hook: &HookName) {
        self.current = Some(hook.clone());
        self.run_start = self.rewrites.len();
    }

    #[inline]
    pub(crate) fn leave(&mut self) {
        self.current = None;
        // The integration may change fields between dispatches.
        self.known.clear();
    }

    /// Whether `field`'s print is known.
    pub(crate) fn knows(&self, field: &'static str) -> bool {
        self.known.iter().any(|(known, _)| *known == field)
    }

    /// Remembers `field`'s print.
    pub(crate) fn remember(&mut self, field: &'static str, print: Print) {
        match self.known.iter_mut().find(|(known, _)| *known == field) {
            Some(slot) => slot.1 = print,
            None => self.known.push((field, print)),
        }
    }

    /// The running hook is done with `field`, which is now `now`: a rewrite
    /// if that is not what it was (or if what it was is no longer known).
    pub(crate) fn settle(&mut self, field: &'static str, now: &Print) {
        match self.known.iter_mut().find(|(known, _)| *known == field) {
            Some(slot) if slot.1 == *now => {}
            Some(slot) => {
                slot.1.clone_from(now);
                self.record_rewrite(field);
            }
            None => {
                self.known.push((field, now.clone()));
                self.record_rewrite(field);
            }
        }
    }

    /// The running hook changed `field` through a tracked write
    /// (`set_arg`): a rewrite, and the field's remembered print no longer holds.
    pub(crate) fn changed(&mut self, field: &'static str) {
        self.known.retain(|(known, _)| *known != field);
        self.record_rewrite(field);
    }

    /// A field changed other than through a hook's borrow (withheld,
    /// restored after a shadow hook): what was known is no longer.
    pub(crate) fn forget_prints(&mut self) {
        self.known.clear();
    }

    pub(crate) fn set_budget(&mut self, budget: usize) {
        self.injected.set_budget(budget);
    }

    /// Whether `field` is borrowed mutably for the first time by the running
    /// hook (only then is its print taken). Outside a hook, changes are
    /// the integration's own and are not recorded.
    pub(crate) fn first_touch(&self, field: &'static str) -> bool {
        self.current.is_some() && !self.touched.contains(&field)
    }

    /// Notes that the running hook borrowed `field`.
    pub(crate) fn touch(&mut self, field: &'static str) {
        self.touched.push(field);
    }

    /// The fields the running hook borrowed, cleared.
    pub(crate) fn take_touched(&mut self) -> SmallVec<[&'static str; 2]> {
        std::mem::take(&mut self.touched)
    }

    #[inline]
    pub(crate) fn has_touched(&self) -> bool {
        !self.touched.is_empty()
    }

    pub(crate) fn record_rewrite(&mut self, field: &'static str) {
        let Some(hook) = &self.current else { return };
        // One rewrite per field per run of a hook (`exclude_tools` twice is
        // one); the same hook in a later dispatch is a rewrite of its own.
        let repeated = self.rewrites.len() > self.run_start
            && self
                .rewrites
                .last()
                .is_some_and(|last| last.field == field && last.hook == *hook);
        if !repeated {
            self.rewrites.push(Rewrite {
                hook: hook.clone(),
                field,
            });
        }
    }

    pub(crate) fn inject(&mut self, injection: &Injection<'_>) {
        self.injected.push(self.current.as_ref(), injection);
    }

    pub(crate) fn record_failure(&mut self, hook: &HookName, error: HookError) {
        self.failures.push(HookFailure {
            hook: hook.clone(),
            error,
        });
    }

    pub(crate) fn record_approval(&mut self, record: ApprovalRecord) {
        self.approvals.push(record);
    }

    /// The last approval recorded, taken back (to be recorded again per hook).
    pub(crate) fn take_last_approval(&mut self) -> Option<ApprovalRecord> {
        self.approvals.pop()
    }

    pub(crate) fn warn(&self, text: String) {
        tracing::warn!(hook = self.current.as_ref().map_or("", HookName::as_str), %text, "hook warning");
        let hook = self.current.clone();
        self.note(|notes| notes.warnings.push(Warning { hook, text }));
    }

    pub(crate) fn user_message(&self, level: MessageLevel, text: String) {
        let hook = self.current.clone();
        self.note(|notes| notes.messages.push(UserMessage { hook, level, text }));
    }

    /// Records that the session should end; the first hook to say so is kept.
    pub(crate) fn end_session(&self, reason: String) {
        let hook = self.current.clone();
        self.note(|notes| {
            if notes.end_session.is_none() {
                notes.end_session = Some(EndSession { hook, reason });
            }
        });
    }

    fn locked(&self) -> MutexGuard<'_, Option<Box<Notes>>> {
        // Nothing panics while holding it but an allocation failure.
        self.notes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Writes the notes, through a shared reference (a guard may warn).
    fn note(&self, write: impl FnOnce(&mut Notes)) {
        write(self.locked().get_or_insert_with(Box::default));
    }

    /// The notes so far.
    pub(crate) fn notes(&self) -> NotesRef<'_> {
        NotesRef(self.locked())
    }

    /// The notes, to write.
    pub(crate) fn notes_mut(&mut self) -> &mut Notes {
        self.notes
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert_with(Box::default)
    }

    /// The notes, to read, without making room for them.
    pub(crate) fn notes_now(&mut self) -> &Notes {
        self.notes
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .as_deref()
            .unwrap_or(&NO_NOTES)
    }

    /// The notes, if there are some (one load when nothing was ever noted).
    #[inline]
    pub(crate) fn notes_if_any(&mut self) -> Option<&Notes> {
        self.notes
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .as_deref()
            .filter(|notes| !notes.is_empty())
    }

    /// Where the trail is before a shadow hook runs.
    pub(crate) fn mark(&mut self) -> TrailMark {
        TrailMark {
            rewrites: self.rewrites.len(),
            injected: self.injected.clone(),
            messages: self.notes_now().messages.len(),
        }
    }

    /// Puts the trail back where `mark` found it, and says which fields
    /// were rewritten since (`context` for injected text).
    pub(crate) fn back_to(&mut self, mark: TrailMark) -> Vec<&'static str> {
        let mut fields: Vec<&'static str> = self.rewrites[mark.rewrites..]
            .iter()
            .map(|rewrite| rewrite.field)
            .collect();
        fields.dedup();
        self.rewrites.truncate(mark.rewrites);
        if self.injected != mark.injected {
            fields.push("context");
            self.injected = mark.injected;
        }
        // A shadow hook's messages would reach the person: dropped.
        if let Some(notes) = self
            .notes
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .as_deref_mut()
        {
            notes.messages.truncate(mark.messages);
        }
        // Its fields are about to be put back.
        self.forget_prints();
        fields
    }

    pub(crate) fn rewrites(&self) -> &[Rewrite] {
        &self.rewrites
    }

    pub(crate) fn injected(&self) -> &Injected {
        &self.injected
    }

    pub(crate) fn failures(&self) -> &[HookFailure] {
        &self.failures
    }

    pub(crate) fn approvals(&self) -> &[ApprovalRecord] {
        &self.approvals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn injected(budget: usize, pieces: &[(&'static str, &str)]) -> Injected {
        let mut trail = Trail::default();
        trail.set_budget(budget);
        for (hook, piece) in pieces {
            trail.enter(&HookName::from_static(hook));
            trail.inject(&Injection::from(*piece));
        }
        trail.injected
    }

    #[test]
    fn pieces_are_joined_by_newlines_within_budget() {
        let injected = injected(100, &[("a", "first"), ("b", "second")]);
        assert_eq!(injected.text(), "first\nsecond");
        assert!(injected.cuts().is_empty());
    }

    #[test]
    fn a_cut_is_reported_and_noted_in_the_text() {
        let injected = injected(8, &[("a", "12345"), ("b", "abcdef")]);
        // "12345" + "\n" leaves two bytes for b.
        assert!(
            injected
                .text()
                .starts_with("12345\nab\n[hooks: 4 of 6 bytes")
        );
        assert_eq!(
            injected.cuts(),
            &[InjectionCut {
                hook: Some(HookName::from_static("b")),
                offered: 6,
                kept: 2
            }]
        );
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        // "é" is two bytes; a budget of 3 keeps one "é", not a byte and a half.
        let injected = injected(3, &[("a", "ééé")]);
        assert!(injected.text().starts_with("é\n"));
        assert_eq!(injected.cuts()[0].kept, 2);
    }
}
