//! One search's result, held compactly for one session: every ACL a 16-byte row (its
//! pattern, principal and host as numbers into tables of the distinct values), built while
//! the DescribeAcls answer is visited as decoded, counted on the way. Only the rows of the
//! page shown become owned [`AclBinding`]s.
//!
//! The resource order (the default) is the broker's when it already is the order shown
//! (kacl's answer is), so the first page of a huge result needs no sort; other orders are a
//! counting sort by the one field (rows of equal field keep the resource order, which is the
//! full binding order's tie-break), kept until another order is asked for.
//! Measured in BENCHMARKS.md (issue 18): 2M ACLs in about 40 MB, where owned bindings took
//! about 300 MB.

use std::collections::HashMap;
use std::time::Instant;

use kacl_acl::{
    AccessControlEntry, AclBinding, AclBindingFilter, AclOperation, AclPermissionType,
    ResourcePattern,
};
use kacl_client::AclGroupRef;

use crate::filter::{Sort, CACHE_FOR, PAGE_SIZE};

/// Totals of a result, counted while it is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) acls: usize,
    pub(crate) resources: usize,
    pub(crate) principals: usize,
    pub(crate) allow: usize,
    pub(crate) deny: usize,
}

/// One ACL: indexes into the result's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Row {
    pattern: u32,
    principal: u32,
    host: u32,
    operation: AclOperation,
    permission: AclPermissionType,
}

/// Distinct strings, numbered in the order met.
#[derive(Debug, Default)]
struct Table {
    ids: HashMap<Box<str>, u32>,
    values: Vec<Box<str>>,
    /// The last one looked up: consecutive ACLs mostly share a host and often a principal.
    last: Option<u32>,
}

impl Table {
    fn id(&mut self, text: &str) -> u32 {
        if let Some(last) = self.last {
            if &*self.values[last as usize] == text {
                return last;
            }
        }
        let id = match self.ids.get(text) {
            Some(id) => *id,
            None => {
                let id = self.values.len() as u32;
                self.values.push(text.into());
                self.ids.insert(text.into(), id);
                id
            }
        };
        self.last = Some(id);
        id
    }
}

/// A result being read, group by group (see [`AclCache::reader`]).
#[derive(Debug, Default)]
pub(crate) struct Reader {
    patterns: Vec<ResourcePattern>,
    principals: Table,
    hosts: Table,
    rows: Vec<Row>,
    allow: usize,
    deny: usize,
    /// Whether the rows so far are in the resource order already (see [`Reader::in_order`]).
    out_of_order: bool,
}

impl Reader {
    /// Takes in one resource of the answer.
    pub(crate) fn visit(&mut self, group: AclGroupRef<'_>) {
        if group.is_empty() {
            return;
        }
        if let Some(last) = self.patterns.last() {
            let key = (group.resource_type, group.name, group.pattern_type);
            if key <= (last.resource_type, last.name.as_str(), last.pattern_type) {
                self.out_of_order = true;
            }
        }
        let sorted = group.entries().zip(group.entries().skip(1)).all(|(a, b)| {
            (a.principal, a.host, a.operation, a.permission_type)
                <= (b.principal, b.host, b.operation, b.permission_type)
        });
        self.out_of_order |= !sorted;
        let pattern = self.patterns.len() as u32;
        self.patterns.push(group.to_pattern());
        for e in group.entries() {
            match e.permission_type {
                AclPermissionType::Allow => self.allow += 1,
                AclPermissionType::Deny => self.deny += 1,
                _ => {}
            }
            self.rows.push(Row {
                pattern,
                principal: self.principals.id(e.principal),
                host: self.hosts.id(e.host),
                operation: e.operation,
                permission: e.permission_type,
            });
        }
    }
}

impl Reader {
    /// How many ACLs have been read.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// True while every resource read came after the one before and had its entries in
    /// order: the rows read so far are then exactly the first rows of the resource order, as
    /// long as the rest of the answer keeps it ([`AclCache::new`] sorts nothing then).
    pub(crate) fn in_order(&self) -> bool {
        !self.out_of_order
    }

    /// The first `n` rows read, as bindings.
    pub(crate) fn first(&self, n: usize) -> Vec<AclBinding> {
        self.rows
            .iter()
            .take(n)
            .map(|r| {
                AclBinding::new(
                    self.patterns[r.pattern as usize].clone(),
                    AccessControlEntry::new(
                        &*self.principals.values[r.principal as usize],
                        &*self.hosts.values[r.host as usize],
                        r.operation,
                        r.permission,
                    ),
                )
            })
            .collect()
    }
}

/// One search's result for one session (see the module documentation).
pub(crate) struct AclCache {
    pub(crate) filter: AclBindingFilter,
    pub(crate) sort: Sort,
    pub(crate) counts: Counts,
    pub(crate) fetched: Instant,
    /// Its share of the sessions' cache budget.
    pub(crate) ticket: Option<crate::budget::CacheTicket>,
    patterns: Vec<ResourcePattern>,
    principals: Vec<Box<str>>,
    hosts: Vec<Box<str>>,
    /// In the resource order.
    rows: Vec<Row>,
    /// Row numbers in `sort` order, unless that is the resource order.
    order: Option<Vec<u32>>,
}

impl AclCache {
    /// An empty reader for a fresh result.
    pub(crate) fn reader() -> Reader {
        Reader::default()
    }

    /// The result read, shown in `sort` order.
    pub(crate) fn new(filter: AclBindingFilter, sort: Sort, read: Reader) -> Self {
        let Reader {
            mut patterns,
            principals,
            hosts,
            mut rows,
            allow,
            deny,
            out_of_order: _,
        } = read;
        let (principal_rank, host_rank) = (
            string_ranks(&principals.values),
            string_ranks(&hosts.values),
        );
        let entry_key = |r: &Row| {
            (
                principal_rank[r.principal as usize],
                host_rank[r.host as usize],
                r.operation,
                r.permission,
            )
        };
        // The resource order is the binding order: by pattern, then by entry. Sorted only
        // where the answer is not already in it; each pattern's rows stay together.
        if !patterns.windows(2).all(|w| w[0] < w[1]) {
            let mut by_pattern: Vec<u32> = (0..patterns.len() as u32).collect();
            by_pattern.sort_by(|a, b| patterns[*a as usize].cmp(&patterns[*b as usize]));
            // A pattern met twice (an answer that is not grouped) becomes one resource.
            let mut new_id = vec![0u32; patterns.len()];
            let mut kept: Vec<u32> = Vec::with_capacity(patterns.len());
            for old in by_pattern {
                let again = kept
                    .last()
                    .is_some_and(|k| patterns[*k as usize] == patterns[old as usize]);
                if !again {
                    kept.push(old);
                }
                new_id[old as usize] = kept.len() as u32 - 1;
            }
            for r in &mut rows {
                r.pattern = new_id[r.pattern as usize];
            }
            let mut slots: Vec<Option<ResourcePattern>> = patterns.into_iter().map(Some).collect();
            patterns = kept
                .iter()
                .filter_map(|old| slots[*old as usize].take())
                .collect();
            rows = by_pattern_id(rows, patterns.len());
        }
        let mut start = 0;
        while start < rows.len() {
            let p = rows[start].pattern;
            let end = start + rows[start..].iter().take_while(|r| r.pattern == p).count();
            let group = &mut rows[start..end];
            if !group
                .windows(2)
                .all(|w| entry_key(&w[0]) <= entry_key(&w[1]))
            {
                group.sort_unstable_by_key(entry_key);
            }
            start = end;
        }
        let counts = Counts {
            acls: rows.len(),
            resources: patterns.len(),
            principals: principals.values.len(),
            allow,
            deny,
        };
        let mut cache = AclCache {
            filter,
            sort: Sort::Resource,
            counts,
            fetched: Instant::now(),
            ticket: None,
            patterns,
            principals: principals.values,
            hosts: hosts.values,
            rows,
            order: None,
        };
        cache.resort(sort);
        cache
    }

    /// Whether this cache answers `filter` without asking the cluster.
    pub(crate) fn answers(&self, filter: &AclBindingFilter) -> bool {
        &self.filter == filter && self.fetched.elapsed() < CACHE_FOR
    }

    /// Orders the rows by `sort` when another order is asked for: a stable counting sort by
    /// the field's rank, so equal fields keep the resource order.
    pub(crate) fn resort(&mut self, sort: Sort) {
        if self.sort == sort {
            return;
        }
        self.sort = sort;
        let ranks: Vec<u32> = match sort {
            Sort::Resource => {
                self.order = None;
                return;
            }
            Sort::Principal => self.rows.iter().map(|r| r.principal).collect(),
            Sort::Host => self.rows.iter().map(|r| r.host).collect(),
            Sort::Operation => self
                .rows
                .iter()
                .map(|r| r.operation.code() as u8 as u32)
                .collect(),
            Sort::Permission => self
                .rows
                .iter()
                .map(|r| r.permission.code() as u8 as u32)
                .collect(),
        };
        // Map ids to their sorted position (strings by value, enums by their order).
        let rank_of: Vec<u32> = match sort {
            Sort::Principal => string_ranks(&self.principals),
            Sort::Host => string_ranks(&self.hosts),
            Sort::Operation => code_ranks(|c| AclOperation::from_code(c as i8)),
            _ => code_ranks(|c| AclPermissionType::from_code(c as i8)),
        };
        let keys: Vec<u32> = ranks.iter().map(|k| rank_of[*k as usize]).collect();
        let buckets = rank_of.len();
        let mut starts = vec![0usize; buckets + 1];
        for k in &keys {
            starts[*k as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut order = vec![0u32; keys.len()];
        for (row, k) in keys.iter().enumerate() {
            let slot = &mut starts[*k as usize];
            order[*slot] = row as u32;
            *slot += 1;
        }
        self.order = Some(order);
    }

    /// The rows of page `page` (0-based; clamped to the last page), as bindings.
    pub(crate) fn page(&self, page: usize) -> (usize, Vec<AclBinding>) {
        let page = page.min(self.pages() - 1);
        let start = page * PAGE_SIZE;
        let end = (start + PAGE_SIZE).min(self.rows.len());
        (page, (start..end).map(|i| self.binding_at(i)).collect())
    }

    /// Every row, in the current order, as bindings (for the export).
    pub(crate) fn bindings(&self) -> Vec<AclBinding> {
        (0..self.rows.len()).map(|i| self.binding_at(i)).collect()
    }

    /// How many pages (at least one, empty).
    pub(crate) fn pages(&self) -> usize {
        self.rows.len().div_ceil(PAGE_SIZE).max(1)
    }

    fn binding_at(&self, i: usize) -> AclBinding {
        let n = self.order.as_ref().map_or(i, |o| o[i] as usize);
        let r = &self.rows[n];
        AclBinding::new(
            self.patterns[r.pattern as usize].clone(),
            AccessControlEntry::new(
                &*self.principals[r.principal as usize],
                &*self.hosts[r.host as usize],
                r.operation,
                r.permission,
            ),
        )
    }
}

/// `rows` ordered by pattern id (ids below `patterns`), each pattern's rows in the order they
/// came: a counting placement, linear where a sort of millions of rows is not.
fn by_pattern_id(rows: Vec<Row>, patterns: usize) -> Vec<Row> {
    let mut starts = vec![0usize; patterns + 1];
    for r in &rows {
        starts[r.pattern as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut placed: Vec<Option<Row>> = vec![None; rows.len()];
    for r in rows {
        let slot = &mut starts[r.pattern as usize];
        placed[*slot] = Some(r);
        *slot += 1;
    }
    placed.into_iter().flatten().collect()
}

fn string_ranks(values: &[Box<str>]) -> Vec<u32> {
    let mut by_value: Vec<u32> = (0..values.len() as u32).collect();
    by_value.sort_unstable_by(|a, b| values[*a as usize].cmp(&values[*b as usize]));
    let mut rank = vec![0; by_value.len()];
    for (r, id) in by_value.into_iter().enumerate() {
        rank[id as usize] = r as u32;
    }
    rank
}

/// For every code 0..=255 (as `u8`), its rank in `T`'s order.
fn code_ranks<T: Ord>(of: impl Fn(u8) -> T) -> Vec<u32> {
    let mut codes: Vec<u8> = (0..=255).collect();
    codes.sort_by_key(|c| of(*c));
    let mut rank = vec![0; 256];
    for (r, c) in codes.into_iter().enumerate() {
        rank[c as usize] = r as u32;
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;
    use kacl_acl::{PatternType, ResourceType};
    use kacl_protocol::messages::describe_acls::{
        AclDescription, DescribeAclsResource, DescribeAclsResponse,
    };
    use std::borrow::Cow;

    fn response(acls: &[AclBinding]) -> DescribeAclsResponse<'static> {
        // One resource per binding, in the order given: neither grouped nor sorted.
        DescribeAclsResponse {
            resources: acls
                .iter()
                .map(|b| DescribeAclsResource {
                    resource_type: b.pattern.resource_type.code(),
                    resource_name: Cow::Owned(b.pattern.name.clone()),
                    pattern_type: b.pattern.pattern_type.code(),
                    acls: vec![AclDescription {
                        principal: Cow::Owned(b.entry.principal.clone()),
                        host: Cow::Owned(b.entry.host.clone()),
                        operation: b.entry.operation.code(),
                        permission_type: b.entry.permission_type.code(),
                        ..Default::default()
                    }]
                    .into(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn results_are_counted_sorted_and_paged_as_owned_bindings_would_be() {
        let ops = [
            AclOperation::Read,
            AclOperation::Write,
            AclOperation::Describe,
        ];
        let mut acls: Vec<AclBinding> = (0..121)
            .map(|i| {
                AclBinding::new(
                    ResourcePattern::new(
                        ResourceType::Topic,
                        format!("t{}", (i * 5) % 7),
                        PatternType::Literal,
                    ),
                    AccessControlEntry::new(
                        format!("User:u{}", (i * 7) % 4),
                        ["*", "h2", "h1"][i % 3],
                        ops[(i / 3) % 3],
                        if i % 10 == 0 {
                            AclPermissionType::Deny
                        } else {
                            AclPermissionType::Allow
                        },
                    ),
                )
            })
            .collect();
        acls.sort();
        acls.dedup();
        let mut shuffled = acls.clone();
        shuffled.reverse();
        shuffled.rotate_left(17);
        let mut reader = AclCache::reader();
        AclGroupRef::of(&response(&shuffled)).for_each(|g| reader.visit(g));
        let mut cache = AclCache::new(AclBindingFilter::ANY, Sort::Resource, reader);
        assert_eq!(cache.counts.acls, acls.len());
        assert_eq!(cache.counts.resources, 7);
        assert_eq!(cache.counts.principals, 4);
        let deny = acls
            .iter()
            .filter(|b| b.entry.permission_type == AclPermissionType::Deny)
            .count();
        assert_eq!(
            (cache.counts.allow, cache.counts.deny),
            (acls.len() - deny, deny)
        );
        assert_eq!(cache.bindings(), acls);
        assert_eq!(cache.pages(), acls.len().div_ceil(PAGE_SIZE));
        let (page, rows) = cache.page(999);
        assert_eq!(page, cache.pages() - 1);
        assert_eq!(rows, acls[page * PAGE_SIZE..]);
        // Every other order: by the field, then by the whole binding (what sorting owned
        // bindings gave).
        type Key = fn(&AclBinding) -> String;
        let orders: [(Sort, Key); 4] = [
            (Sort::Principal, |b| b.entry.principal.clone()),
            (Sort::Host, |b| b.entry.host.clone()),
            (Sort::Operation, |b| {
                format!("{:03}", b.entry.operation as u8)
            }),
            (Sort::Permission, |b| {
                format!("{:03}", b.entry.permission_type as u8)
            }),
        ];
        for (sort, key) in orders {
            cache.resort(sort);
            let mut want = acls.clone();
            want.sort_by(|a, b| (key(a), a).cmp(&(key(b), b)));
            assert_eq!(cache.bindings(), want, "{sort:?}");
        }
        cache.resort(Sort::Resource);
        assert_eq!(cache.page(1).1, acls[PAGE_SIZE..2 * PAGE_SIZE]);
    }
}
