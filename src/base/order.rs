//! Sorting: every list hermes orders goes through one sort. std's sort is
//! copied into the binary once per element type and comparison (4 to 9 KB
//! each, 35 of them once); here the one copy sorts positions, and the
//! items are then moved to their places.

use std::cmp::Ordering;

/// Sort `items` by `compare`, stably: items that compare equal keep
/// their order.
pub(crate) fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let mut places: Vec<usize> = (0..items.len()).collect();
    sort_places(&mut places, &mut |a, b| compare(&items[a], &items[b]));
    permute(items, &mut places);
}

/// Sort `items` in their natural order.
pub(crate) fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// The one instance of std's sort: positions, compared through `compare`,
/// ties kept in position order (so an unstable sort sorts stably).
fn sort_places(places: &mut [usize], compare: &mut dyn FnMut(usize, usize) -> Ordering) {
    places.sort_unstable_by(|&a, &b| compare(a, b).then(a.cmp(&b)));
}

/// Move `items` so that place `i` holds what was at `places[i]`, cycle by
/// cycle with swaps: linear, and `places` is used up (each place visited
/// is marked as its own).
fn permute<T>(items: &mut [T], places: &mut [usize]) {
    for start in 0..places.len() {
        let mut here = start;
        loop {
            let from = places[here];
            places[here] = here;
            if from == start || from == here {
                break;
            }
            items.swap(here, from);
            here = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_std_and_keeps_ties_in_order() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..200 {
            let items: Vec<(u8, usize)> = (0..len)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    ((seed % 7) as u8, i)
                })
                .collect();
            let mut ours = items.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut theirs = items.clone();
            theirs.sort_by_key(|a| a.0);
            assert_eq!(ours, theirs, "length {len}");
        }
    }

    #[test]
    fn sort_and_by_a_key() {
        let mut words = vec!["pear", "apple", "fig", "apple"];
        sort(&mut words);
        assert_eq!(words, ["apple", "apple", "fig", "pear"]);
        sort_by(&mut words, |a, b| b.len().cmp(&a.len()));
        assert_eq!(words, ["apple", "apple", "pear", "fig"]);
    }

    #[test]
    fn moves_items_that_are_not_copy() {
        let mut names: Vec<String> = ["c", "a", "b", "a"].iter().map(|s| s.to_string()).collect();
        sort(&mut names);
        assert_eq!(names, ["a", "a", "b", "c"]);
    }
}
