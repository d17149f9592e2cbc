//! The few etcd calls kacl makes outside its data path: a member's status (tests find the
//! raft leader with it), a compaction, and the auth set-up that tests and operators script
//! (users, roles, a read-write grant on kacl's prefix, enabling auth).

use crate::client::{EtcdClient, EtcdError};
use crate::proto;

/// What `Maintenance.Status` says of one member.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberStatus {
    /// The answering member's id.
    pub member_id: u64,
    /// The member it believes is the raft leader (0: none).
    pub leader: u64,
    /// Its etcd version.
    pub version: String,
}

impl EtcdClient {
    /// The status of the member that answers.
    pub fn status(&self) -> Result<MemberStatus, EtcdError> {
        let answer: proto::StatusResponse =
            self.admin_call("/etcdserverpb.Maintenance/Status", &proto::Empty {})?;
        Ok(MemberStatus {
            member_id: answer.header.as_ref().map_or(0, |h| h.member_id),
            leader: answer.leader,
            version: answer.version,
        })
    }

    /// Compacts the history up to `revision`, waiting until it is physically applied.
    pub fn compact(&self, revision: i64) -> Result<(), EtcdError> {
        let request = proto::CompactionRequest {
            revision,
            physical: true,
        };
        self.admin_call::<proto::HeaderOnly>("/etcdserverpb.KV/Compact", &request)
            .map(|_| ())
    }

    /// Adds an etcd user.
    pub fn auth_user_add(&self, name: &str, password: &str) -> Result<(), EtcdError> {
        let request = proto::NamePassword {
            name: name.to_owned(),
            password: password.to_owned(),
        };
        self.admin_call::<proto::HeaderOnly>("/etcdserverpb.Auth/UserAdd", &request)
            .map(|_| ())
    }

    /// Adds a role.
    pub fn auth_role_add(&self, name: &str) -> Result<(), EtcdError> {
        let request = proto::Name {
            name: name.to_owned(),
        };
        self.admin_call::<proto::HeaderOnly>("/etcdserverpb.Auth/RoleAdd", &request)
            .map(|_| ())
    }

    /// Grants `role` to `user`.
    pub fn auth_user_grant_role(&self, user: &str, role: &str) -> Result<(), EtcdError> {
        let request = proto::AuthUserGrantRoleRequest {
            user: user.to_owned(),
            role: role.to_owned(),
        };
        self.admin_call::<proto::HeaderOnly>("/etcdserverpb.Auth/UserGrantRole", &request)
            .map(|_| ())
    }

    /// Lets `role` read and write `[key, end)`.
    pub fn auth_role_grant_readwrite(
        &self,
        role: &str,
        key: &[u8],
        end: &[u8],
    ) -> Result<(), EtcdError> {
        let request = proto::AuthRoleGrantPermissionRequest {
            name: role.to_owned(),
            perm: Some(proto::Permission {
                perm_type: proto::PERM_READWRITE,
                key: key.to_vec(),
                range_end: end.to_vec(),
            }),
        };
        self.admin_call::<proto::HeaderOnly>("/etcdserverpb.Auth/RoleGrantPermission", &request)
            .map(|_| ())
    }

    /// Turns authentication on (a `root` user with the `root` role must exist).
    pub fn auth_enable(&self) -> Result<(), EtcdError> {
        self.admin_call::<proto::HeaderOnly>("/etcdserverpb.Auth/AuthEnable", &proto::Empty {})
            .map(|_| ())
    }
}
