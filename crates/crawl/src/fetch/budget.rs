//! [`BodyBudget`]: a cap on the response-body bytes a crawl holds at once.
//!
//! Fetching on a fast network outruns analysis (CPU work), and every body
//! fetched but not yet analyzed is held in memory: with 64 fetches in
//! flight and multi-megabyte pages that is hundreds of megabytes. A body
//! reserves its share of the budget before it is read (its declared
//! `Content-Length`, capped at the body cap) and releases it when the
//! [`BodyReservation`] is dropped, after analysis. A fetch that finds the
//! budget spent waits before reading (the connection is open, the server
//! is held back by TCP flow control), so bodies held stay at most the
//! budget, plus the growth of bodies without a declared length past their
//! first reservation (taken when available, never waited for: waiting
//! while holding part of the budget could deadlock).

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Budget unit: reservations are whole KiB.
const UNIT: usize = 1024;

/// Reserved up front for a body of unknown length.
pub const UNKNOWN_LENGTH_RESERVE: usize = 256 * 1024;

/// Shared body-bytes budget; clones share it.
#[derive(Clone, Debug)]
pub struct BodyBudget {
    sem: Arc<Semaphore>,
    units: u32,
}

impl PartialEq for BodyBudget {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.sem, &other.sem)
    }
}

impl Eq for BodyBudget {}

/// A body's share of a [`BodyBudget`], released when dropped.
#[derive(Debug)]
pub struct BodyReservation {
    permit: OwnedSemaphorePermit,
    budget: BodyBudget,
}

fn units_of(bytes: usize) -> usize {
    bytes.div_ceil(UNIT).max(1)
}

impl BodyBudget {
    /// A budget of `bytes` (at least one unit).
    pub fn new(bytes: usize) -> BodyBudget {
        let units = u32::try_from(units_of(bytes)).unwrap_or(u32::MAX >> 4);
        BodyBudget {
            sem: Arc::new(Semaphore::new(units as usize)),
            units,
        }
    }

    /// Bytes not reserved now.
    pub fn available(&self) -> usize {
        self.sem.available_permits() * UNIT
    }

    /// Waits until `bytes` are free and reserves them. A request larger
    /// than the whole budget reserves the whole budget (it then runs
    /// alone), so it never waits forever.
    pub async fn reserve(&self, bytes: usize) -> BodyReservation {
        let units = u32::try_from(units_of(bytes))
            .unwrap_or(u32::MAX)
            .min(self.units);
        let permit = match Arc::clone(&self.sem).acquire_many_owned(units).await {
            Ok(p) => p,
            // The semaphore is never closed.
            Err(_) => unreachable_closed(),
        };
        BodyReservation {
            permit,
            budget: self.clone(),
        }
    }
}

#[cold]
fn unreachable_closed() -> ! {
    panic!("body budget semaphore closed")
}

impl BodyReservation {
    /// Bytes reserved.
    pub fn bytes(&self) -> usize {
        self.permit.num_permits() * UNIT
    }

    /// Grows the reservation to cover `bytes` if the budget has room now;
    /// never waits (see the module doc).
    pub fn try_grow(&mut self, bytes: usize) {
        let need = units_of(bytes).saturating_sub(self.permit.num_permits());
        if need == 0 {
            return;
        }
        let Ok(need) = u32::try_from(need) else {
            return;
        };
        if let Ok(more) = Arc::clone(&self.budget.sem).try_acquire_many_owned(need) {
            self.permit.merge(more);
        }
    }

    /// Shrinks the reservation to `bytes` (the body's real size), giving
    /// the rest back.
    pub fn shrink_to(&mut self, bytes: usize) {
        let keep = units_of(bytes);
        let have = self.permit.num_permits();
        if have > keep {
            drop(self.permit.split(have - keep));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reservations_wait_for_room_and_give_it_back() {
        let budget = BodyBudget::new(10 * UNIT);
        let mut a = budget.reserve(6 * UNIT).await;
        assert_eq!(budget.available(), 4 * UNIT);
        // 6 KiB do not fit next to a's 6: the second waits.
        let b = budget.reserve(6 * UNIT);
        tokio::pin!(b);
        assert!(futures_util::poll!(b.as_mut()).is_pending());
        a.shrink_to(UNIT + 1);
        assert_eq!(a.bytes(), 2 * UNIT);
        let b = b.await;
        assert_eq!(b.bytes(), 6 * UNIT);
        assert_eq!(budget.available(), 2 * UNIT);
        drop((a, b));
        assert_eq!(budget.available(), 10 * UNIT);
    }

    #[tokio::test]
    async fn oversized_requests_take_the_whole_budget_and_growth_never_waits() {
        let budget = BodyBudget::new(4 * UNIT);
        let mut r = budget.reserve(100 * UNIT).await;
        assert_eq!(r.bytes(), 4 * UNIT);
        r.try_grow(200 * UNIT);
        assert_eq!(r.bytes(), 4 * UNIT);
        drop(r);
        let mut r = budget.reserve(UNIT).await;
        r.try_grow(3 * UNIT);
        assert_eq!(r.bytes(), 3 * UNIT);
        assert_eq!(budget.available(), UNIT);
    }
}
