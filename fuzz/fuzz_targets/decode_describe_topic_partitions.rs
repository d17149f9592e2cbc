//! Fuzzes the DescribeTopicPartitions request decoder (KIP-966, with its nullable cursor): byte 0 picks the version, the rest is the body.
#![no_main]

use kacl_protocol::messages::describe_topic_partitions::DescribeTopicPartitionsRequest;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    kacl_protocol_fuzz::check_request_body!(DescribeTopicPartitionsRequest, data);
});
