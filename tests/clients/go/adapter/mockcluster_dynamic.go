//go:build dynamic

// The dynamic build (confluent-kafka-go v2.0.2 on the system librdkafka)
// hosts no mock cluster: bp-mock-cluster runs on that same library.
package main

import (
	"fmt"
	"os"
)

func serveMockCluster(topics []string) int {
	fmt.Fprintln(os.Stderr, "mock-cluster: not in the dynamic build (use bp-mock-cluster)")
	return 2
}
