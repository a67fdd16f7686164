# Sourced by tools/setup.sh (and by tests/test_setup_script.py, with a fake apt-get on PATH).
# apt-get, waiting up to 5 minutes for another apt/dpkg (unattended upgrades at boot, say) to
# release its lock, and trying once more after a failure; if it still fails, print why (the last
# lines of apt's output) and the command to run by hand, and return non-zero.
apt_install() {
    local log attempt
    for attempt in 1 2; do
        if log=$( { apt-get -o DPkg::Lock::Timeout=300 update -qq &&
                    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 \
                        install -y -qq "$@"; } 2>&1 ); then
            return 0
        fi
        [ "$attempt" = 1 ] && sleep "${APT_RETRY_DELAY:-5}"
    done
    echo "apt-get could not install $*; it said:"
    echo "$log" | tail -n 15
    echo "to try again by hand: apt-get update && apt-get install -y $*"
    return 1
}
