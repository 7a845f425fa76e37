# shellcheck shell=bash
# lib/completion.bash: bash completion for jlbench. Source it, or copy it
# where bash-completion finds it by the command's name:
#   cp lib/completion.bash ~/.local/share/bash-completion/completions/jlbench
# The first word completes to a subcommand (jlbench commands: name<TAB>
# path, one a line), a later one
# starting with - to an option that subcommand's --help names; others to
# file names.

_jlbench() {
	local cur=${COMP_WORDS[COMP_CWORD]} jlbench=${COMP_WORDS[0]}
	if [[ $COMP_CWORD == 1 ]]; then
		mapfile -t COMPREPLY < <(compgen -W "help $("$jlbench" commands 2>/dev/null | cut -f1)" -- "$cur")
	elif [[ $cur == -* ]]; then
		local opts
		opts=$("$jlbench" "${COMP_WORDS[1]}" --help 2>&1 | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u)
		mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
}
complete -o filenames -F _jlbench jlbench
