test_description="s2"
. "$(dirname "$0")/lib.sh"
test_expect_success "one" "sleep 0.$((4 - 2))"
test_done
