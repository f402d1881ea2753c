//go:build !dynamic

// mock-cluster mode of the Go adapter: librdkafka's mock cluster in the
// librdkafka this build carries (the bundled one), for checks that need a
// mock of that version rather than bp-mock-cluster's.
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// serveMockCluster creates the NAME:PARTITIONS topics, prints the bootstrap
// address and serves until stdin closes; returns the exit status.
func serveMockCluster(topics []string) int {
	mc, err := kafka.NewMockCluster(1)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mock-cluster: %v\n", err)
		return 1
	}
	defer mc.Close()
	for _, t := range topics {
		name, count, _ := strings.Cut(t, ":")
		n, err := strconv.Atoi(count)
		if err == nil && n > 0 {
			err = mc.CreateTopic(name, n, 1)
		}
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "mock-cluster: bad topic %q: expected NAME:PARTITIONS\n", t)
			return 2
		}
	}
	fmt.Println(mc.BootstrapServers())
	io.Copy(io.Discard, os.Stdin)
	return 0
}
