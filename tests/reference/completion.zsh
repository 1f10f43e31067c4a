#compdef hermes
# zsh completion for hermes
# Install it: hermes completion zsh > "${fpath[1]}/_hermes"
# or load it: source <(hermes completion zsh)

# Session titles (or IDs, with "id") from 'hermes sessions list
# --completing WORD' (those whose title or ID starts with the word typed,
# any case; from the catalog), whose output is MARK<TAB>TITLE<TAB>DATE<TAB>
# COUNT<TAB>ID. What to list is the last argument: _arguments puts compadd
# options before it.
_hermes_sessions() {
  local what=${argv[-1]} line expl
  local -a fields values descriptions profile
  local name=${_hermes_profile:-${opt_args[-p]:-$opt_args[--profile]}}
  [[ -n $name ]] && profile=(-p $name)
  for line in ${(f)"$(_call_program sessions command hermes ${(q)profile[@]} sessions list --completing ${(q)${(Q)PREFIX}} 2>/dev/null)"}; do
    fields=("${(@ps:\t:)line}")
    if [[ $what == id ]]; then
      values+=("$fields[5]")
      descriptions+=("$fields[5]  -- $fields[2]")
    else
      values+=("$fields[2]")
      descriptions+=("$fields[2]  -- $fields[3]")
    fi
  done
  _wanted sessions expl "session ${what/id/ID}" compadd -l -d descriptions -a values
}

# Role names from 'hermes roles': NAME<TAB>MODEL<TAB>DESCRIPTION<TAB>FILE.
_hermes_roles() {
  local line expl
  local -a roles descriptions fields profile
  local name=${_hermes_profile:-${opt_args[-p]:-$opt_args[--profile]}}
  [[ -n $name ]] && profile=(-p $name)
  for line in ${(f)"$(_call_program roles command hermes ${(q)profile[@]} roles 2>/dev/null)"}; do
    fields=("${(@ps:\t:)line}")
    roles+=("$fields[1]")
    descriptions+=("$fields[1]  -- $fields[3]")
  done
  _wanted roles expl role compadd -l -d descriptions -a roles
}

# The models 'hermes models' kept (the shell never has the agent asked).
_hermes_models() {
  local expl name=${_hermes_profile:-${opt_args[-p]:-$opt_args[--profile]}}
  local -a models profile
  [[ -n $name ]] && profile=(-p $name)
  models=(${(f)"$(_call_program models command hermes ${(q)profile[@]} models --cached 2>/dev/null)"})
  _wanted models expl model compadd -a models
}

_hermes_profiles() {
  local expl
  local -a profiles
  profiles=(${HERMES_HOME:-$HOME/.hermes}/profiles/*(N/:t))
  _wanted profiles expl profile compadd -a profiles
}

# The values of the setting named just before (config set KEY VALUE).
_hermes_setting_values() {
  local expl
  local -a values
  case $words[CURRENT-1] in
  agent_input) values=(json transcript text) ;;
  render) values=(markdown plain) ;;
  session_id) values=(always pipe never) ;;
  save) values=(true false) ;;
  usage) values=(true false) ;;
  compact) values=(auto off) ;;
  esac
  (( $#values )) && _wanted values expl value compadd -a values
}

# The verbs of the command named just before (hermes help sessions VERB).
_hermes_verbs_of() {
  local expl
  local -a verbs
  case $words[CURRENT-1] in
  sessions) verbs=(list ls search pick show current export import rename repair delete rm prune stats compact merge merge-file) ;;
  config) verbs=(get set unset list path check) ;;
  esac
  (( $#verbs )) && _wanted verbs expl verb compadd -a verbs
}

_hermes_help=('(- *)'{-h,--help}'[show help]')

_hermes_chat_options=(
  '(-c --continue)'{-c,--continue}'[this terminal'\''s last session; else the newest one in this workspace (git root, else directory); else the newest of all]::name:_hermes_sessions title'
  --create-if-missing'[with -c NAME: create the session titled NAME if none matches (parallel calls create exactly one); NAME is then only a full ID or an exact title: one that no title matches and that is shaped like an ID, an ID prefix (20261204) or a short ID is refused (exit 2), even if it abbreviates a session'\''s ID (-r continues that one)]'
  '(-r --resume)'{-r+,--resume=}'[the session with this ID, or the one a short ID names (8 or more leading characters, or the last 6 hex digits)]:id:_hermes_sessions id'
  --pick'[choose the session on a full-screen list and continue it here (see '\''hermes sessions pick --help'\'')]'
  --title='[title for a new session (refused if another session has it, or if it would be read as an ID)]:title: '
  '(-q --query)'{-q+,--query=}'[send TEXT, print the reply, exit (one-shot); with stdin a pipe or file, one message: stdin, a blank line, then TEXT]:text or -: '
  '(-f --file)'{-f+,--file=}'[put the text file FILE into the message, fenced and named (after stdin, before TEXT), or send the image FILE with it (PNG, JPEG, GIF or WebP, at most 20 MiB; kept once in the store'\''s images/); again for more, at most 32; any other file that is not text is refused]:file:_files'
  '(-Q --quiet)'{-Q,--quiet}'[do not print '\''session_id: ID'\'' or hints to stderr]'
  --json'[one-shot only: print the turn as one JSON object instead of the reply (session_id, title, created, model, role, reply, code, interrupted, incomplete, usage, error, exit_status)]'
  '(-x --code)'{-x,--code}'[one-shot only: print only the reply'\''s fenced code, every block in order without its fences, not the reply (kept as ever); a reply with none is exit 3]'
  --no-save'[one-shot only: make the turn and print the reply, keep nothing: no session made or changed (with -c or -r, the session is the context and stays as it was), no breadcrumb (also: save = "false" in config.toml or a role)]'
  '(-e --execute)'{-e,--execute}'[one-shot only: the reply'\''s one command (a fenced block, or a line; the shell role gives one) is shown and asked about on the terminal: run it with $SHELL -c, edit it, copy it, or not; hermes exits with its status, and the session notes what became of it; without a terminal nothing is run: the command is printed, exit 2]'
  --usage'[after each reply, one line on stderr with its tokens (in, out) and the session'\''s total, as the agent reported them (also: usage = "true" in config.toml)]'
  '(-m --model)'{-m+,--model=}'[the model to use, kept in the session: -c continues with the session'\''s model unless -m says otherwise (default: '\''model'\'' in config.toml, then $HERMES_MODEL, then $OPENAI_MODEL for json)]:model:_hermes_models'
  '(-s --system)'{-s+,--system=}'[the session'\''s system prompt (a new session'\''s default: '\''system'\'' in config.toml)]:text: '
  --system-file='[the system prompt from FILE]:file:_files'
  --role='[start with the role NAME: its system prompt, and its model, context budget and agent where no option here says otherwise; a session it makes records it (see '\''hermes roles'\'')]:name:_hermes_roles'
  --agent='[the command that writes replies (default: $HERMES_AGENT, then '\''agent'\'' in config.toml)]:cmd:_cmdstring'
  --no-agent'[only save the message; no reply]'
  --plain'[show replies as the agent sent them, not as Markdown drawn for the terminal (also: render = "plain" in config.toml, or TERM=dumb)]'
  --context='[the context budget: a turn sends at most N characters of the conversation (default: '\''context'\'' in config.toml, else 300000; '\''off'\'': no limit)]:n: '
  --timeout='[give up on a reply when the agent has sent nothing for SECONDS (default 300, or '\''timeout'\'' in config.toml; 0: no limit): exit 3, what arrived kept and marked incomplete]:seconds: '
  '(-o --option)'{-o+,--option=}'[a model option sent with each request and kept in the session: temperature=0-2, top_p=0-1, max_tokens=N, seed=N, stop=TEXT; again for more (also in a role, and in config.toml)]:key=value: '
  --var='[fill {{KEY}} in the role'\''s text with VALUE; again for more ('\''hermes roles'\'' shows each role'\''s variables)]:key=value: '
  --schema='[ask for a reply of JSON of this shape (a JSON Schema, or a file holding one): sent as the request'\''s response_format; a reply that is not such JSON is kept, and the chat exits 3]:json or file:_files'
)

_hermes_cmd_chat() {
  _arguments -s $_hermes_help $_hermes_chat_options '*:text: '
}

_hermes_cmd_sessions() {
  local -a verbs
  if (( CURRENT == 2 )); then
    verbs=(
      'list:sessions, newest activity first (with TEXT, those whose title holds it)'
      'search:sessions whose title or messages hold TEXT'
      'pick:choose a session on a full-screen list; print its ID'
      'show:print a conversation'
      'current:which session '\''hermes chat -c'\'' would continue, and why'
      'export:export some or all sessions'
      'import:import sessions from hermes, the Python Hermes or llm'
      'rename:give a session a new title'
      'repair:mend a damaged session: keep every readable message, the file copied aside first'
      'delete:delete sessions (asks first on a terminal)'
      'prune:delete sessions inactive for DAYS, stray temporary files and stale breadcrumbs'
      'stats:counts and sizes of the store (with NAME, of one session)'
      'compact:have the agent summarise a session'\''s older messages'
      'merge:merge sync tools'\'' conflict copies, or the sessions sharing TITLE'
      'merge-file:merge two versions of a session file (a git merge driver)'
    )
    _describe -t verbs 'sessions command' verbs
    return
  fi
  shift words
  (( CURRENT-- ))
  curcontext=${curcontext%:*}-$words[1]:
  case $words[1] in
  list | ls) _arguments -s $_hermes_help '(-n --limit)'{-n+,--limit=}'[show at most N sessions (default 20)]:n: ' --all'[show every session]' --here'[only sessions started in this workspace (git root, else the current directory)]' --json'[a JSON array of session headers, for scripts]' '1::text: ' ;;
  search) _arguments -s $_hermes_help '(-n --limit)'{-n+,--limit=}'[show at most N sessions (default 20)]:n: ' --json'[a JSON array: per session its ID, title, times, the count of matches and the first 10 snippets]' '1:text: ' ;;
  pick) _arguments -s $_hermes_help ;;
  show) _arguments -s $_hermes_help --json'[the whole session file as JSON, raw text included]' '1:name or id:_hermes_sessions title' ;;
  current) _arguments -s $_hermes_help --json'[{"id", "title", "reason"} as JSON]' '(-f --format)'{-f+,--format=}'[print TEMPLATE with {title}, {title_tmux} (the title with each # doubled, for tmux'\''s status line), {id}, {short_id} (the last 6 hex digits), {model} and {reason} filled in, for a shell prompt or a tmux status line; without a session, print nothing]:template: ' ;;
  export) _arguments -s $_hermes_help '(-f --format)'{-f+,--format=}'[json (an array, default), jsonl (one session a line, for import) or markdown]:value:(json jsonl markdown)' '(-o --output)'{-o+,--output=}'[write to FILE (atomically, mode 0600) instead of stdout; a device or FIFO is written into, a symlink refused; a FILE that is there is not replaced]:file:_files' --force'[replace the -o FILE if it is there]' '*:name or id:_hermes_sessions title' ;;
  import) _arguments -s $_hermes_help --from='[what wrote FILE (default: hermes)]:value:(hermes hermes-agent llm)' --dry-run'[report what would be imported; write nothing]' '1:file:_files' ;;
  rename) _arguments -s $_hermes_help '1:name or id:_hermes_sessions title' '2:title: ' ;;
  repair) _arguments -s $_hermes_help --dry-run'[say what would be kept and left out; write nothing]' '1:name or id:_hermes_sessions title' ;;
  delete | rm) _arguments -s $_hermes_help '(-y --yes)'{-y,--yes}'[do not ask (needed when not on a terminal)]' '*:name or id:_hermes_sessions title' ;;
  prune) _arguments -s $_hermes_help --older-than='[remove what has been inactive longer than DAYS days]:days: ' --dry-run'[list what would be removed; remove nothing]' '(-y --yes)'{-y,--yes}'[do not ask (needed when not on a terminal)]' ;;
  stats) _arguments -s $_hermes_help --json'[the same as a JSON object]' '1::name or id:_hermes_sessions title' ;;
  compact) _arguments -s $_hermes_help --keep='[keep the last N messages as they are]:n: ' --agent='[the command that writes the summary (default: as chat)]:cmd:_cmdstring' --context='[the context budget: a turn sends at most N characters of the conversation (default: '\''context'\'' in config.toml, else 300000; '\''off'\'': no limit)]:n: ' '1:name or id:_hermes_sessions title' ;;
  merge) _arguments -s $_hermes_help --dry-run'[say what would be merged; change nothing]' --restore'[bring back the session of a copy whose session is gone, under a free title (its own, else its own with (2), (3)...)]' '(-y --yes)'{-y,--yes}'[do not ask (needed when not on a terminal)]' '1::title:_hermes_sessions title' ;;
  merge-file) _arguments -s $_hermes_help '1:base:_files' '2:ours:_files' '3:theirs:_files' ;;
  esac
}

_hermes_cmd_config() {
  local -a verbs
  if (( CURRENT == 2 )); then
    verbs=(
      'get:print the value hermes uses'
      'set:write a value to config.toml'
      'unset:remove a value from config.toml'
      'list:every value, and where it came from'
      'path:print where config.toml is'
      'check:send one tiny request through the agent; say what is wrong'
    )
    _describe -t verbs 'config command' verbs
    return
  fi
  shift words
  (( CURRENT-- ))
  curcontext=${curcontext%:*}-$words[1]:
  case $words[1] in
  get) _arguments -s $_hermes_help '1:key:(agent agent_input model base_url api_key_env api_key_command system render session_id save usage context timeout compact temperature top_p max_tokens seed stop)' ;;
  set) _arguments -s $_hermes_help '1:key:(agent agent_input model base_url api_key_env api_key_command system render session_id save usage context timeout compact temperature top_p max_tokens seed stop)' '2:value:_hermes_setting_values' ;;
  unset) _arguments -s $_hermes_help '1:key:(agent agent_input model base_url api_key_env api_key_command system render session_id save usage context timeout compact temperature top_p max_tokens seed stop)' ;;
  list) _arguments -s $_hermes_help ;;
  path) _arguments -s $_hermes_help ;;
  check) _arguments -s $_hermes_help --timeout='[how long check waits (default 30)]:seconds: ' ;;
  esac
}

_hermes_chat_options=(
  --json'[the same as JSON]'
)

_hermes_cmd_roles() {
  _arguments -s $_hermes_help $_hermes_chat_options '1::name:_hermes_roles'
}

_hermes_chat_options=(
  --json'[the same as a JSON array]'
  --cached'[the list kept from the last time, without asking the agent (exit 1 when there is none)]'
  --timeout='[how long the agent may take (default 30)]:seconds: '
)

_hermes_cmd_models() {
  _arguments -s $_hermes_help $_hermes_chat_options
}

_hermes_cmd_completion() {
  _arguments -s $_hermes_help '1:value:(bash zsh fish)'
}

_hermes_cmd_help() {
  _arguments -s $_hermes_help --all'[the help of every command and verb]' '1:command:(chat sessions config roles models completion help)' '2:verb:_hermes_verbs_of'
}

_hermes() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  _arguments -C -s \
    '(-p --profile)'{-p+,--profile=}'[use $HERMES_HOME/profiles/NAME]:name:_hermes_profiles' \
    '(-h --help)'{-h,--help}'[show this help]' \
    '(-V --version)'{-V,--version}'[show the version (-V -v: with build details)]' \
    --no-pager'[never page long output (show, export, help) on a terminal]' \
    $_hermes_chat_options \
    '1: :->command' \
    '*:: :->args' && ret=0
  # -p PROFILE, for listing that profile's sessions further on.
  local _hermes_profile=${opt_args[-p]:-$opt_args[--profile]}
  case $state in
  command)
    local -a commands
    commands=(
      'chat:talk in a new or continued session (the default)'
      'sessions:your sessions: list, search, pick, show, current, export, import, rename, repair, delete, prune, stats, compact, merge and merge-file'
      'config:the agent, server, key and model in config.toml: get, set, unset, list, path and check'
      'roles:the roles chat --role takes: a system prompt with its model, budget and agent'
      'models:the models the configured server offers, asked of the agent'
      'completion:print a shell completion script'
      'help:show help for a command'
    )
    _describe -t commands command commands && ret=0
    ;;
  args)
    curcontext=${curcontext%:*:*}:hermes-$words[1]:
    case $words[1] in
    chat) _hermes_cmd_chat && ret=0 ;;
    sessions) _hermes_cmd_sessions && ret=0 ;;
    config) _hermes_cmd_config && ret=0 ;;
    roles) _hermes_cmd_roles && ret=0 ;;
    models) _hermes_cmd_models && ret=0 ;;
    completion) _hermes_cmd_completion && ret=0 ;;
    help) _hermes_cmd_help && ret=0 ;;
    esac
    ;;
  esac
  return ret
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _hermes "$@"
else
  compdef _hermes hermes
fi
