//! KIP-140's ACL calls: `describe_acls`, `create_acls`, `delete_acls`, with Kafka's
//! AdminClient behaviour: local validation before sending, deduplicated input, results mapped
//! back by position, top-level errors failing the whole call.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use kacl_acl::{AclBinding, AclBindingFilter};
use kacl_protocol::messages::create_acls::{CreateAclsRequest, CreateAclsResponse};
use kacl_protocol::messages::delete_acls::{DeleteAclsRequest, DeleteAclsResponse};
use kacl_protocol::messages::describe_acls::{DescribeAclsRequest, DescribeAclsResponse};
use kacl_protocol::{ApiKey, ErrorCode, Message};
use std::sync::Arc;

use super::dedupe::Deduped;
use super::{Admin, Target};
use crate::acl_groups::{AclGroupRef, AclGroups, AclGroupsBuilder};
use crate::acl_stream::DescribeAclsDecoder;
use crate::acl_wire;
use crate::error::AdminError;
use crate::net::{BrokerConnection, StreamedResponse};

/// Options of [`Admin::describe_acls`] (Kafka's `DescribeAclsOptions`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DescribeAclsOptions {
    /// Deadline of the whole call, retries included; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
}

/// Options of [`Admin::create_acls`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CreateAclsOptions {
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
}

/// Options of [`Admin::delete_acls`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeleteAclsOptions {
    /// Deadline of the whole call; `None` uses `default.api.timeout.ms`.
    pub timeout: Option<Duration>,
}

/// What one delete filter removed: each matching binding, or the error the broker reported
/// for it (Kafka's `FilterResults`).
pub type FilterResults = Vec<Result<AclBinding, AdminError>>;

type BoxedBindings = Pin<Box<dyn Future<Output = Result<Vec<AclBinding>, AdminError>> + Send>>;

/// The outcome of [`Admin::describe_acls`]: a future of the matching bindings (Kafka's
/// `DescribeAclsResult.values()`). Await it directly or through [`DescribeAclsResult::values`].
#[must_use = "a DescribeAclsResult does nothing until awaited"]
pub struct DescribeAclsResult {
    future: BoxedBindings,
}

impl DescribeAclsResult {
    /// The matching bindings, or the error that failed the call.
    pub async fn values(self) -> Result<Vec<AclBinding>, AdminError> {
        self.future.await
    }
}

impl std::fmt::Debug for DescribeAclsResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DescribeAclsResult")
    }
}

/// Awaiting the result awaits the bindings (`admin.describe_acls(f, o).await`).
impl Future for DescribeAclsResult {
    type Output = Result<Vec<AclBinding>, AdminError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.future.as_mut().poll(cx)
    }
}

impl Admin {
    /// Lists the bindings that match `filter` (KIP-140 `describeAcls`). Filter fields of
    /// `None` or ANY match anything; UNKNOWN anywhere in the filter fails the call before
    /// anything is sent, as in Kafka's AdminClient. Sent to any broker.
    pub fn describe_acls(
        &self,
        filter: AclBindingFilter,
        options: DescribeAclsOptions,
    ) -> DescribeAclsResult {
        let admin = self.clone();
        let future = async move {
            admin
                .describe_collect(&filter, options, Vec::new, |bindings, group| {
                    let pattern = group.to_pattern();
                    bindings.extend(
                        group
                            .entries()
                            .map(|e| AclBinding::new(pattern.clone(), e.to_entry())),
                    );
                })
                .await
        };
        DescribeAclsResult {
            future: Box::pin(future),
        }
    }

    /// [`Admin::describe_acls`], with the answer kept grouped by resource pattern and its
    /// principals and hosts shared ([`AclGroups`]): for large answers (a full describe of
    /// millions of ACLs), where building one owned binding per ACL is most of the time.
    pub async fn describe_acls_grouped(
        &self,
        filter: AclBindingFilter,
        options: DescribeAclsOptions,
    ) -> Result<AclGroups, AdminError> {
        self.describe_collect(
            &filter,
            options,
            AclGroupsBuilder::default,
            |groups, group| groups.push(group),
        )
        .await
        .map(AclGroupsBuilder::finish)
    }

    /// [`Admin::describe_acls`] without building anything: `visit` sees each resource of the
    /// answer borrowed ([`AclGroupRef`]), in the broker's order, as soon as its bytes have
    /// arrived, while the rest of the answer is still on its way.
    ///
    /// Failures before the first resource (connecting, a retriable error code in the answer)
    /// are retried as [`Admin::call`] retries; once resources have been visited, a failure
    /// (the connection lost mid-answer, a malformed resource) ends the call with that error
    /// and is not retried, so `visit` may have seen a prefix of the answer, never a resource
    /// twice.
    pub async fn describe_acls_visit<F>(
        &self,
        filter: AclBindingFilter,
        options: DescribeAclsOptions,
        mut visit: F,
    ) -> Result<(), AdminError>
    where
        F: FnMut(AclGroupRef<'_>) + Send,
    {
        self.describe_acls_start(filter, options)
            .await?
            .visit(&mut visit)
            .await
    }

    /// The first half of [`Admin::describe_acls_visit`]: sends the request and waits for the
    /// answer's head (its error code checked, retried as [`Admin::call`] retries), leaving its
    /// resources to [`DescribeAclsStream::visit`]. For a caller that must know whether the
    /// call failed before it commits to showing a result (a web page's status line).
    pub async fn describe_acls_start(
        &self,
        filter: AclBindingFilter,
        options: DescribeAclsOptions,
    ) -> Result<DescribeAclsStream, AdminError> {
        let started = self
            .call(
                "describeAcls",
                options.timeout,
                Target::AnyBroker,
                |broker| {
                    let filter = &filter;
                    async move { start_describe(&broker, filter).await }
                },
            )
            .await?;
        Ok(DescribeAclsStream { started })
    }

    /// The full answer decoded into `T` as it arrives (`add` sees each resource), the whole
    /// attempt retried as [`Admin::call`] retries: nothing is handed out before the end.
    async fn describe_collect<T, N, A>(
        &self,
        filter: &AclBindingFilter,
        options: DescribeAclsOptions,
        new: N,
        add: A,
    ) -> Result<T, AdminError>
    where
        T: Send,
        N: Fn() -> T + Sync,
        A: Fn(&mut T, AclGroupRef<'_>) + Sync,
    {
        self.call(
            "describeAcls",
            options.timeout,
            Target::AnyBroker,
            |broker| {
                let (new, add) = (&new, &add);
                async move {
                    let mut out = new();
                    let mut started = start_describe(&broker, filter).await?;
                    started.finish(&mut |group| add(&mut out, group)).await?;
                    Ok(out)
                }
            },
        )
        .await
    }
    /// Creates `bindings` (KIP-140 `createAcls`): one result per input position. A binding
    /// that could match more than one ACL (ANY, MATCH, UNKNOWN, a missing name) fails locally
    /// with `Invalid ACL creation: <field>`; duplicates are sent once. Sent to the controller.
    pub async fn create_acls(
        &self,
        bindings: Vec<AclBinding>,
        options: CreateAclsOptions,
    ) -> Vec<Result<(), AdminError>> {
        let deduped = Deduped::new(bindings);
        let mut outcomes: Vec<Result<(), AdminError>> = vec![Ok(()); deduped.unique.len()];
        let mut to_send = Vec::new();
        let mut sent_index = Vec::new();
        for (i, binding) in deduped.unique.iter().enumerate() {
            match binding.to_filter().find_indefinite_field() {
                None => {
                    to_send.push(binding.clone());
                    sent_index.push(i);
                }
                Some(field) => {
                    outcomes[i] = Err(AdminError::InvalidRequest(format!(
                        "Invalid ACL creation: {field}"
                    )));
                }
            }
        }
        if !to_send.is_empty() {
            let sent = self
                .call(
                    "createAcls",
                    options.timeout,
                    Target::Controller,
                    |broker| {
                        let to_send = &to_send;
                        async move {
                            let version = broker
                                .versions
                                .pick(ApiKey::CreateAcls, CreateAclsRequest::VERSIONS)?;
                            let request = acl_wire::create_request(to_send, version)?;
                            let response = broker.conn.send(version, &request).await?;
                            let body: CreateAclsResponse = response.decode()?;
                            Ok(body
                                .results
                                .iter()
                                .map(|r| {
                                    AdminError::check(r.error_code, r.error_message.as_deref())
                                })
                                .collect::<Vec<_>>())
                        }
                    },
                )
                .await;
            match sent {
                Ok(results) => {
                    for (n, &i) in sent_index.iter().enumerate() {
                        outcomes[i] = results.get(n).cloned().unwrap_or_else(|| {
                            Err(AdminError::server(
                                ErrorCode::UnknownServerError,
                                Some("The broker reported no creation result for the given ACL."),
                            ))
                        });
                    }
                }
                Err(err) => {
                    for &i in &sent_index {
                        outcomes[i] = Err(err.clone());
                    }
                }
            }
        }
        deduped.spread(&outcomes)
    }

    /// Deletes the bindings matching each filter (KIP-140 `deleteAcls`): per input position,
    /// the filter's deleted bindings (each with its own error, if any) or the filter's error.
    /// Duplicate filters are sent once. Sent to the controller.
    pub async fn delete_acls(
        &self,
        filters: Vec<AclBindingFilter>,
        options: DeleteAclsOptions,
    ) -> Vec<Result<FilterResults, AdminError>> {
        let deduped = Deduped::new(filters);
        if deduped.unique.is_empty() {
            return Vec::new();
        }
        let sent = self
            .call(
                "deleteAcls",
                options.timeout,
                Target::Controller,
                |broker| {
                    let filters = &deduped.unique;
                    async move {
                        let version = broker
                            .versions
                            .pick(ApiKey::DeleteAcls, DeleteAclsRequest::VERSIONS)?;
                        let request = acl_wire::delete_request(filters, version)?;
                        let response = broker.conn.send(version, &request).await?;
                        let body: DeleteAclsResponse = response.decode()?;
                        Ok(body
                            .filter_results
                            .iter()
                            .map(|result| {
                                AdminError::check(
                                    result.error_code,
                                    result.error_message.as_deref(),
                                )?;
                                Ok(result
                                    .matching_acls
                                    .iter()
                                    .map(|acl| {
                                        AdminError::check(
                                            acl.error_code,
                                            acl.error_message.as_deref(),
                                        )
                                        .map(|()| acl_wire::binding_from_deleted(acl))
                                    })
                                    .collect())
                            })
                            .collect::<Vec<Result<FilterResults, AdminError>>>())
                    }
                },
            )
            .await;
        let outcomes: Vec<Result<FilterResults, AdminError>> = match sent {
            Ok(mut results) => {
                results.resize_with(deduped.unique.len(), || {
                    Err(AdminError::server(
                        ErrorCode::UnknownServerError,
                        Some("The broker reported no deletion result for the given filter."),
                    ))
                });
                results
            }
            Err(err) => vec![Err(err); deduped.unique.len()],
        };
        deduped.spread(&outcomes)
    }
}

/// A DescribeAcls answer whose head has arrived ([`Admin::describe_acls_start`]).
#[must_use = "the answer's resources are read by visit"]
pub struct DescribeAclsStream {
    started: StartedDescribe,
}

impl std::fmt::Debug for DescribeAclsStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DescribeAclsStream")
    }
}

impl DescribeAclsStream {
    /// How many resources the answer holds (its array's count).
    pub fn resources(&self) -> usize {
        self.started.decoder.head().map_or(0, |h| h.resources)
    }

    /// Visits every resource as it arrives, as [`Admin::describe_acls_visit`] does.
    pub async fn visit<F>(mut self, mut visit: F) -> Result<(), AdminError>
    where
        F: FnMut(AclGroupRef<'_>),
    {
        self.started.finish(&mut visit).await
    }
}

/// A DescribeAcls whose answer has begun to arrive: its head decoded and its error code
/// checked, the resources still to come.
struct StartedDescribe {
    /// Keeps the connection (and so its reader) alive while the answer streams.
    _broker: Arc<BrokerConnection>,
    response: StreamedResponse,
    decoder: DescribeAclsDecoder,
}

/// Refuses an UNKNOWN filter, sends the request, and reads the answer up to its head: a
/// broker error (retriable or not) is known before any resource is visited.
async fn start_describe(
    broker: &Arc<BrokerConnection>,
    filter: &AclBindingFilter,
) -> Result<StartedDescribe, AdminError> {
    if filter.is_unknown() {
        return Err(AdminError::InvalidRequest(
            "The AclBindingFilter must not contain UNKNOWN elements.".into(),
        ));
    }
    let version = broker
        .versions
        .pick(ApiKey::DescribeAcls, DescribeAclsRequest::VERSIONS)?;
    let request = acl_wire::describe_request(filter, version)?;
    let response = broker.conn.send_streamed(version, &request).await?;
    let mut started = StartedDescribe {
        _broker: Arc::clone(broker),
        response,
        decoder: DescribeAclsDecoder::new(version, 0),
    };
    let mut first = true;
    while started.decoder.head().is_none() {
        started.pull(&mut first).await?;
        started
            .decoder
            .advance(true, &mut |_| {})
            .map_err(|e| decode_error(e, version))?;
    }
    let head = started.decoder.head().cloned().unwrap_or_default();
    AdminError::check(head.error_code, head.error_message.as_deref())?;
    Ok(started)
}

fn decode_error(err: kacl_protocol::DecodeError, version: i16) -> AdminError {
    AdminError::decode(format!(
        "{} v{version}: {err}",
        <DescribeAclsResponse as kacl_protocol::wire::Struct>::NAME
    ))
}

impl StartedDescribe {
    /// Takes the next chunk into the decoder (the first also sizes it).
    async fn pull(&mut self, first: &mut bool) -> Result<(), AdminError> {
        match self.response.next_chunk().await? {
            Some(chunk) => {
                if std::mem::take(first) {
                    self.decoder =
                        DescribeAclsDecoder::new(self.response.version(), chunk.frame_len);
                }
                self.decoder.push(&chunk.bytes);
                Ok(())
            }
            None => Err(self.response.closed_reason()),
        }
    }

    /// Visits every resource, the buffered ones first, as the rest arrives.
    async fn finish<F>(&mut self, visit: &mut F) -> Result<(), AdminError>
    where
        F: FnMut(AclGroupRef<'_>),
    {
        let version = self.response.version();
        let mut first = false;
        loop {
            self.decoder
                .advance(false, visit)
                .map_err(|e| decode_error(e, version))?;
            if self.decoder.is_done() {
                return Ok(());
            }
            self.pull(&mut first).await?;
        }
    }
}
