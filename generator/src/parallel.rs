//! Longest-first scheduling of per-study work on rayon's pool.
//!
//! Studies differ in size by an order of magnitude, and each one is a single unit of work.
//! `par_iter` splits a slice in halves, so with two threads the largest study may start last
//! and leave the other thread idle while it runs. Here each thread takes the largest item
//! not yet started (greedy longest-processing-time first), which bounds that idle tail by the
//! smallest items. Results come back in index order, so nothing downstream depends on which
//! thread ran what.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Runs `task(i)` for every `i` in `0..sizes.len()`, largest `sizes[i]` first (ties: lower
/// index first), on rayon's pool; returns the results in index order.
pub fn largest_first<T: Send>(sizes: &[u64], task: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(sizes[i]), i));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..sizes.len()).map(|_| None).collect());
    rayon::scope(|scope| {
        for _ in 0..rayon::current_num_threads().min(sizes.len()) {
            scope.spawn(|_| {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let result = task(i);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(result);
                }
            });
        }
    });
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    // Every index was taken exactly once; a task that panicked re-panics out of the scope.
    results.into_iter().map(|r| r.expect("every index runs once")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_in_index_order_whatever_the_sizes() {
        let sizes = [3, 50, 1, 50, 7, 0];
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let out = pool.install(|| largest_first(&sizes, |i| i * 10));
        assert_eq!(out, vec![0, 10, 20, 30, 40, 50]);
        assert!(largest_first(&[], |i: usize| i).is_empty());
    }

    #[test]
    fn one_thread_runs_the_largest_first() {
        let sizes = [3, 50, 1, 50, 7];
        let started = Mutex::new(Vec::new());
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        pool.install(|| largest_first(&sizes, |i| started.lock().unwrap().push(i)));
        assert_eq!(started.into_inner().unwrap(), vec![1, 3, 4, 0, 2]);
    }
}
