//! Roles in a chat: `--role NAME` given with a session that exists, and
//! `/role [NAME]` (see `agent::role` for what a role is).

use super::state::Interactive;
use super::{Chat, set_system};
use crate::agent::role::{self, Role};
use crate::agent::{self, Agent};
use crate::error::{Error, Result};
use crate::output;
use crate::store::Store;
use crate::store::session::Header;

/// `-s TEXT` or `--role NAME` with a session that exists: the system
/// prompt given (`-s` over the role's) is its own from now on, and it
/// records the role.
pub(super) fn apply_to_session(
    store: &Store,
    header: Header,
    system: Option<&str>,
    role: Option<&Role>,
) -> Result<Header> {
    let header = match system.or(role.and_then(|r| r.prompt.as_deref())) {
        Some(text) => set_system(store, &header.id, text)?,
        None => header,
    };
    match role {
        Some(role) if header.role.as_deref() != Some(role.name.as_str()) => {
            store.update_header(&header.id, |h| h.role = Some(role.name.clone()))
        }
        _ => Ok(header),
    }
}

impl Chat<'_> {
    /// `/role`: the session's role and this chat's; `/role NAME`: a new
    /// session with that role, which stays this chat's.
    pub(super) fn role_command(&self, state: &mut Interactive, name: &str) -> Result<()> {
        if name.is_empty() {
            let session = state.current.as_ref().and_then(|h| h.role.as_deref());
            let chat = self.role.borrow();
            let names: Vec<String> = role::names(self.store).into_iter().map(|(n, _, _)| n).collect();
            match (session, chat.as_deref()) {
                (Some(s), _) => output::say!("role: {s} (this session's)"),
                (None, Some(c)) if state.current.is_none() => output::say!("role: {c} (the new session's)"),
                _ => output::say!("role: none"),
            }
            if names.is_empty() {
                output::say!(
                    "No roles yet: a role is a file roles/NAME.md in the profile; see 'hermes roles --help'."
                );
            } else {
                output::say!("Roles: {}. /role NAME starts a session with one.", names.join(", "));
            }
            return Ok(());
        }
        let role = role::find(self.store, name)?;
        let given = format!("/role {}", role.name);
        let overrides: Vec<_> = self.overrides.iter().cloned().chain(role.overrides(&given)).collect();
        let settings = agent::resolve_settings(self.store, overrides)?;
        // The agent is this chat's: another is started by another chat.
        let wanted = Agent::from_settings(&settings)?.map(|a| (a.command, a.input));
        if wanted != self.agent.as_ref().map(|a| (a.command.clone(), a.input)) {
            return Err(Error::usage(format!(
                "the role '{}' is answered by another agent than this chat's: start a chat with it: hermes \
                    chat --role {}",
                role.name, role.name
            )));
        }
        self.budget.set(settings.budget());
        *self.settings.borrow_mut() = settings;
        *self.role.borrow_mut() = Some(role.name.clone());
        self.new_session(state, "")?;
        let model = self.model_for(None).map(|(m, _)| format!(", model {m}")).unwrap_or_default();
        output::say!("Role: {}{model}. {}", role.name, role.description);
        Ok(())
    }
}
