test_description="s3"
. "$(dirname "$0")/lib.sh"
test_expect_success "one" "sleep 0.$((4 - 3))"
test_done
