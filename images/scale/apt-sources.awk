# apt-sources.awk: edit the vendor's own entries in one apt source file, leave the rest byte for byte.
#
# Used by Dockerfile.apt on the files scale-repos installs (POSIX awk; mawk and gawk):
#   awk -v mode=rewrite -v hosts="H1 H2" -v repo=URL -f apt-sources.awk FILE
#       points every URI whose host is one of `hosts` at `repo`;
#   awk -v mode=strip -v hosts="H1 H2" -f apt-sources.awk FILE
#       drops the vendor's entries: one-line `deb`/`deb-src` lines with a vendor URI,
#       vendor URIs from deb822 `URIs:` fields, and deb822 stanzas left with no URI.
# The result goes to stdout. An entry is the vendor's when its URI's host (scheme,
# user info, port and path stripped; case-insensitive) is in `hosts`. Everything else
# (comments, other repositories such as AMD's amdgpu one, options, suites) is printed
# unchanged. Known limit: a deb822 `URIs:` value continued on the next line is not
# recognised (apt allows it; no vendor file is known to use it).
BEGIN {
    hosts = " " tolower(hosts) " "
    gsub(/[ \t]+/, " ", hosts)
    n = 0
    keep = 1
}

function host_of(uri, h) {
    h = uri
    if (!sub(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, "", h)) return ""
    sub(/\/.*$/, "", h)
    sub(/^.*@/, "", h)
    sub(/:[0-9]*$/, "", h)
    return tolower(h)
}

function is_vendor(uri, h) {
    h = host_of(uri)
    return h != "" && index(hosts, " " h " ") > 0
}

# deb822 stanzas are buffered so that strip can drop a whole one; `keep` is 0 once a
# stanza's URIs field has lost all its URIs.
function flush(i) {
    if (keep) for (i = 1; i <= n; i++) print buf[i]
    n = 0
    keep = 1
}

function emit(line) {
    buf[++n] = line
}

# One-line format: deb [options] URI suite [components]
match($0, /^[ \t]*deb(-src)?[ \t]+(\[[^]]*\][ \t]+)?/) {
    prefix = substr($0, 1, RLENGTH)
    rest = substr($0, RLENGTH + 1)
    uri = rest
    sub(/[ \t].*$/, "", uri)
    if (is_vendor(uri)) {
        if (mode == "strip") next
        emit(prefix repo substr(rest, length(uri) + 1))
        next
    }
    emit($0)
    next
}

# deb822: URIs: one or more URIs separated by blanks (field names are case-insensitive)
tolower($0) ~ /^uris:/ {
    colon = index($0, ":")
    field = substr($0, 1, colon)
    count = split(substr($0, colon + 1), uris, /[ \t]+/)
    changed = 0
    value = ""
    for (i = 1; i <= count; i++) {
        if (uris[i] == "") continue
        if (is_vendor(uris[i])) {
            changed = 1
            if (mode == "strip") continue
            uris[i] = repo
        }
        value = value " " uris[i]
    }
    if (!changed) emit($0)
    else if (value == "") keep = 0
    else emit(field value)
    next
}

/^[ \t]*$/ {
    flush()
    print
    next
}

{ emit($0) }

END { flush() }
