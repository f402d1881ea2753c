// Package bucketpriority connects a confluent-kafka-go consumer to the
// bucket-priority plugin (libbucketpriority). Go takes rebalances as events,
// so the plugin cannot remap a Go consumer's assignment by itself: a bucket
// consumer sets bucket.priority.rebalance.events.mapped=true and subscribes
// with RebalanceCb (or calls Map from its own callback).
//
// Build with cgo and the plugin's include and library directories, e.g.
// CGO_CFLAGS=-I/usr/local/include CGO_LDFLAGS=-L/usr/local/lib, and link
// the Go program so the plugin can find librdkafka: -tags dynamic, or
// -ldflags '-extldflags=-Wl,--export-dynamic' with the bundled librdkafka.
// plugin.library.paths must load the same libbucketpriority file that the
// program links, or Map finds no client of that name. Link it with
// -lbucketpriority, not pkg-config: bucketpriority.pc requires rdkafka,
// which would mix the system librdkafka into a default (bundled) build.
package bucketpriority

/*
#cgo LDFLAGS: -lbucketpriority
#include <stdlib.h>
#include <bucket_priority.h>
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// Map returns the partitions consumer c must assign instead of ps, the list
// of an AssignedPartitions event: ps's partitions of the bucket topic become
// c's bucket partitions, each with its start offset; other topics are kept.
func Map(c *kafka.Consumer, ps []kafka.TopicPartition) ([]kafka.TopicPartition, error) {
	n := len(ps)
	if n == 0 {
		return ps, nil
	}
	name := C.CString(c.String())
	defer C.free(unsafe.Pointer(name))
	topics, parts := make([]*C.char, n), make([]C.int32_t, n)
	for i, p := range ps {
		topics[i] = C.CString(*p.Topic)
		defer C.free(unsafe.Pointer(topics[i]))
		parts[i] = C.int32_t(p.Partition)
	}
	idx, outP, outO := make([]C.int32_t, n), make([]C.int32_t, n), make([]C.int64_t, n)
	var errstr [512]C.char
	cnt := C.bp_assignment_map_by_name(name, &topics[0], &parts[0], C.int(n),
		&idx[0], &outP[0], &outO[0], &errstr[0], C.size_t(len(errstr)))
	if cnt < 0 {
		return nil, errors.New(C.GoString(&errstr[0]))
	}
	out := make([]kafka.TopicPartition, cnt)
	for j := range out {
		out[j] = kafka.TopicPartition{Topic: ps[idx[j]].Topic,
			Partition: int32(outP[j]), Offset: kafka.Offset(outO[j])}
	}
	return out, nil
}

// RebalanceCb is a kafka.RebalanceCb for bucket consumers. On the classic
// group protocol it assigns the mapped list on AssignedPartitions and
// unassigns on RevokedPartitions. On the next generation protocol
// (group.protocol=consumer, KIP-848: GetRebalanceProtocol() is
// "COOPERATIVE") assignments are increments and Assign fails: it assigns
// Map's list (the broker's partitions, start offsets set; the plugin pauses
// those outside the bucket) with IncrementalAssign and unassigns what is
// revoked with IncrementalUnassign. When mapping fails it reads nothing
// until the next rebalance, and returns the error; it must still assign
// (the empty list, or on the consumer protocol the broker's list, paused),
// or confluent-kafka-go would assign the group's whole list itself.
func RebalanceCb(c *kafka.Consumer, ev kafka.Event) error {
	incremental := c.GetRebalanceProtocol() == "COOPERATIVE"
	switch e := ev.(type) {
	case kafka.AssignedPartitions:
		ps, err := Map(c, e.Partitions)
		if err != nil && incremental {
			c.IncrementalAssign(e.Partitions) // what the broker counts as held
			c.Pause(e.Partitions)
			return err
		}
		if err != nil {
			c.Assign([]kafka.TopicPartition{}) // nothing until the next rebalance
			return err
		}
		if incremental {
			return c.IncrementalAssign(ps)
		}
		return c.Assign(ps)
	case kafka.RevokedPartitions:
		if incremental {
			return c.IncrementalUnassign(e.Partitions)
		}
		return c.Unassign()
	}
	return nil
}
