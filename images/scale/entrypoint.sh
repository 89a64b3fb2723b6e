#!/bin/sh
# moatbridge-scale-entrypoint: the licence gate of SCALE container images.
#
# Same behaviour as Spectral Compute's own image entrypoint (scale-docker's
# scripts/entrypoint.sh), in POSIX sh so it runs on any base:
#   SCALE_LICENSE_PRINT=1|y|Y|yes|Yes   print /opt/scale/LICENSE.txt first;
#   SCALE_LICENSE_ACCEPT=1|y|Y|yes|Yes  required; otherwise print where to read the
#                                       licence and how to accept it, and exit 1;
#   then exec the command given, or bash (sh if absent) when there is none.
# Unlike the vendor's script it prints nothing on acceptance, so the command's
# stdout (e.g. `nvcc --version`) is not polluted.
#
# NOTE: `docker run --entrypoint ...` (or podman's) replaces this script, so the
# gate in the image alone cannot enforce consent. That is why moatbridge itself
# also refuses to run SCALE images until the user's acceptance has been recorded,
# and then passes SCALE_LICENSE_ACCEPT=1 explicitly.
set -eu

LICENSE_FILE=/opt/scale/LICENSE.txt

is_yes() {
    case "${1:-}" in
        1 | y | Y | yes | Yes) return 0 ;;
        *) return 1 ;;
    esac
}

if is_yes "${SCALE_LICENSE_PRINT:-}"; then
    if [ -r "$LICENSE_FILE" ]; then
        cat "$LICENSE_FILE"
    else
        echo "moatbridge: $LICENSE_FILE is missing from this image" >&2
    fi
fi

if ! is_yes "${SCALE_LICENSE_ACCEPT:-}"; then
    cat >&2 <<EOF

    SCALE licence agreement
    =======================

    To use this container image you must accept the SCALE software licence.
    Read it at:

    * https://docs.scale-lang.com/stable/licensing/
    * in this image, at $LICENSE_FILE
      (run with SCALE_LICENSE_PRINT=1 to print it)

    To accept it, run the container with SCALE_LICENSE_ACCEPT=1
    (for example: docker run -e SCALE_LICENSE_ACCEPT=1 ...).

EOF
    exit 1
fi

if [ "$#" -eq 0 ]; then
    if command -v bash >/dev/null 2>&1; then
        exec bash
    fi
    exec /bin/sh
fi
exec "$@"
