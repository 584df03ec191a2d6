# bash completion for iobench, iotest, io_profile and bigread.
# Installed as share/bash-completion/completions/<binary> (one copy per
# binary, so bash-completion finds it by the command's name); sourcing it
# registers all four.  Self-contained: it needs no bash-completion helper.

_iobench_names() {
	# plugin names of a kind: the shipped ones, and any other iobench finds
	local kind=$1
	{
		case $kind in
		backend) printf '%s\n' posix stdio direct mmap ;;
		output) printf '%s\n' human csv json svg fio-json ;;
		esac
		command -v iobench >/dev/null 2>&1 &&
			iobench plugins 2>/dev/null | awk -v k="$kind" '$1 == k { print $2 }'
	} | sort -u
}

# Complete the current word $cur from a word list.
_iobench_words() {
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

_iobench_files() {
	local IFS=$'\n'
	COMPREPLY=($(compgen -f -- "$cur"))
	compopt -o filenames 2>/dev/null
}

_iobench_dirs() {
	local IFS=$'\n'
	COMPREPLY=($(compgen -d -- "$cur"))
	compopt -o filenames 2>/dev/null
}

# An --output/--format list: complete the item after the last comma.
_iobench_output_list() {
	local bin=$1 extra=$2 head="" item=$cur n
	case $cur in
	*,*) head=${cur%,*}, ; item=${cur##*,} ;;
	esac
	local IFS=$'\n'
	COMPREPLY=()
	for n in $extra $(_iobench_names output); do
		case $n in "$item"*) COMPREPLY+=("$head$n") ;; esac
	done
	compopt -o nospace 2>/dev/null
}

_iobench() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} cmd="" i
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		run | check | plugins | keys | compare | report) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	case $cmd:$prev in
	report:-o | report:--output) _iobench_files; return ;;
	esac
	case $prev in
	-o | --output) _iobench_output_list iobench ""; return ;;
	-d | --dir | -P | --plugin-dir) _iobench_dirs; return ;;
	--progress) _iobench_words "auto always never"; return ;;
	--options) _iobench_words "$(_iobench_names backend)"; return ;;
	--livecsv | --json | --svg) _iobench_files; return ;;
	--log-interval | -s | --set | --fio-ignore | --memory-limit | --repeat | --threshold | --alpha) return ;;
	esac
	if [ -z "$cmd" ]; then
		_iobench_words "run check plugins keys compare report --help --version"
		return
	fi
	case $cmd in
	run | check)
		if [[ $cur == -* ]]; then
			[ "$cmd" = run ] && _iobench_words "--output --dir --plugin-dir --verbose --progress --log-interval
--livecsv --repeat --set --fio --fio-ignore --wide --memory-limit --allow-device" ||
				_iobench_words "--dir --plugin-dir --verbose --set --fio --fio-ignore --memory-limit --allow-device"
		else
			local IFS=$'\n'
			COMPREPLY=($(compgen -f -X '!*.ini' -- "$cur") $(compgen -f -X '!*.fio' -- "$cur")
				$(compgen -d -- "$cur"))
			compopt -o filenames 2>/dev/null
		fi
		;;
	plugins) _iobench_words "--plugin-dir --options" ;;
	keys) _iobench_words "--fio --markdown --tsv" ;;
	compare | report)
		if [[ $cur == -* ]]; then
			[ "$cmd" = compare ] && _iobench_words "--threshold --alpha --json --svg" || _iobench_words "--output"
		else
			local IFS=$'\n'
			COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
			compopt -o filenames 2>/dev/null
		fi
		;;
	esac
}

_iobench_iotest() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	case $prev in
	--format) _iobench_output_list iotest "iotest"; return ;;
	--backend) _iobench_words "$(_iobench_names backend)"; return ;;
	-i | --input | -o | --output) _iobench_files; return ;;
	--plugin-dir) _iobench_dirs; return ;;
	--progress) _iobench_words "auto always never"; return ;;
	-s | --size-mb | -b | --block-size | -p | --pattern | -c | --comment | --seed | --snooze | --backend-options | \
	--threads | --iodepth)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		_iobench_words "--all --allow-device --backend --backend-options --block-size --comment --curt
--drop-caches --dump-profile --format --help --input --iodepth --no-sync --output --pattern --plugin-dir --progress
--read --seed --size-mb --snooze --sync --threads --truncate --verbose --verify --version --write"
	else
		_iobench_files
	fi
}

_iobench_io_profile() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	case $prev in
	-o | --output) _iobench_output_list io_profile "io_profile"; return ;;
	--backend) _iobench_words "$(_iobench_names backend)"; return ;;
	-d | --dir | --plugin-dir) _iobench_dirs; return ;;
	--progress) _iobench_words "auto always never"; return ;;
	-l | -m | -M | -n | --levels | --files | --seed | --warmup | --repeat | --backend-options) return ;;
	esac
	_iobench_words "--backend --backend-options --dir --dump-profile --files --help --keep-open --levels
--output --plugin-dir --progress --quiet --remove --repeat --seed --tree-rates --version --warmup -s -l -m -M -n -b -r -q
-k -d -o -v -h"
}

_iobench_bigread() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	case $prev in
	-o | --output) _iobench_output_list bigread "bigread"; return ;;
	-b | --backend) _iobench_words "$(_iobench_names backend)"; return ;;
	-P | --plugin-dir) _iobench_dirs; return ;;
	--backend-options) return ;;
	--progress) _iobench_words "auto always never"; return ;;
	esac
	case $cur in
	-*)
		_iobench_words "--allow-devices --backend --backend-options --dump-profile --evict --help --output
--plugin-dir --progress --verbose --version"
		;;
	in=*)
		local IFS=$'\n' f
		COMPREPLY=()
		for f in $(compgen -f -- "${cur#in=}"); do COMPREPLY+=("in=$f"); done
		;;
	*)
		_iobench_files
		COMPREPLY+=($(compgen -W "in= bufsize= mode= debug= help=" -- "$cur"))
		;;
	esac
}

complete -F _iobench iobench
complete -F _iobench_iotest iotest
complete -F _iobench_io_profile io_profile
complete -F _iobench_bigread bigread
