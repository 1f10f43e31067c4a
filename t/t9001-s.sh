test_description="s1"
. "$(dirname "$0")/lib.sh"
test_expect_success "one" "sleep 0.$((4 - 1))"
test_done
