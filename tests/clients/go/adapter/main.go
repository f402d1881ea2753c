// The Go client adapter of the client matrix (tests/clients/client_matrix.py):
// a confluent-kafka-go producer or bucket consumer configured the way Go
// users configure one (kafka.ConfigMap), speaking the adapter protocol.
//
//	adapter produce BOOTSTRAP PLUGIN
//	    stdin: one key a line ("-" = NULL key), value "v", topic orders;
//	    after EOF: flush, then "delivered KEY PARTITION" or
//	    "failed KEY ERROR" per delivery report.
//	adapter consume BOOTSTRAP PLUGIN GROUP BUCKET [NAME=VALUE ...]
//	    "assigned P,P,..." (sorted partitions of orders, maybe none)
//	    after each rebalance event that changed the assignment, "record
//	    PARTITION KEY" per record ("-" = NULL key), until stdin closes;
//	    then Close() and exit 0. NAME=VALUE entries go into the ConfigMap
//	    too (group.protocol=consumer).
//	adapter version
//	    "librdkafka X.Y.Z", the library it runs on.
//	adapter mock-cluster TOPIC:PARTITIONS ...
//	    librdkafka's mock cluster in the adapter's own librdkafka
//	    (kafka.NewMockCluster), like bp-mock-cluster: prints the bootstrap
//	    address, serves until stdin closes (not in the dynamic build).
//
// A client that cannot be created prints "error TEXT" and exits 3.
// BP_GO_NO_HELPER=1 makes the consumer subscribe without
// bucketpriority.RebalanceCb and without
// bucket.priority.rebalance.events.mapped (the plugin must refuse it);
// BP_GO_DEBUG=cgrp,... sets librdkafka's debug property.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"bpclients/bucketpriority"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

const topic = "orders"

func usage() {
	fmt.Fprintln(os.Stderr, "usage: adapter produce BOOTSTRAP PLUGIN\n"+
		"       adapter consume BOOTSTRAP PLUGIN GROUP BUCKET [NAME=VALUE ...]\n"+
		"       adapter version\n"+
		"       adapter mock-cluster TOPIC:PARTITIONS ...")
	os.Exit(2)
}

// baseConfig is the configuration both roles share. ConfigMap has no order:
// confluent-kafka-go sets plugin.library.paths before every other property.
// BP_GO_DEBUG, when set, becomes librdkafka's debug property (stderr).
func baseConfig(bootstrap, plugin string) kafka.ConfigMap {
	cfg := kafka.ConfigMap{
		"bootstrap.servers":          bootstrap,
		"plugin.library.paths":       plugin,
		"bucket.priority.topic":      topic,
		"bucket.priority.buckets":    "Platinum, Gold",
		"bucket.priority.allocation": "70%, 30%",
	}
	if d := os.Getenv("BP_GO_DEBUG"); d != "" {
		cfg["debug"] = d
	}
	return cfg
}

func fail(err error) {
	fmt.Printf("error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
	os.Exit(3)
}

func keyText(key []byte) string {
	if key == nil {
		return "-"
	}
	return string(key)
}

func produce(bootstrap, plugin string) {
	cfg := baseConfig(bootstrap, plugin)
	p, err := kafka.NewProducer(&cfg)
	if err != nil {
		fail(err)
	}
	reports := make(chan kafka.Event, 100000)
	var lines []string
	pending := map[int]string{} // Opaque (line number) -> key text
	t := topic
	in := bufio.NewScanner(os.Stdin)
	for n := 0; in.Scan(); n++ {
		line := strings.TrimSpace(in.Text())
		if line == "" {
			continue
		}
		msg := &kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &t, Partition: kafka.PartitionAny},
			Value:          []byte("v"),
			Opaque:         n,
		}
		if line != "-" {
			msg.Key = []byte(line)
		}
		if err := p.Produce(msg, reports); err != nil {
			lines = append(lines, fmt.Sprintf("failed %s %v", line, err))
			continue
		}
		pending[n] = line
	}
	p.Flush(30000)
	timeout := time.After(5 * time.Second)
	for len(pending) > 0 {
		select {
		case ev := <-reports:
			m, ok := ev.(*kafka.Message)
			if !ok {
				continue
			}
			n, _ := m.Opaque.(int)
			key := pending[n]
			delete(pending, n)
			if m.TopicPartition.Error != nil {
				lines = append(lines, fmt.Sprintf("failed %s %v", key, m.TopicPartition.Error))
			} else {
				lines = append(lines, fmt.Sprintf("delivered %s %d", key, m.TopicPartition.Partition))
			}
		case <-timeout:
			for _, key := range pending {
				lines = append(lines, fmt.Sprintf("failed %s no delivery report within 35 s", key))
			}
			pending = nil
		}
	}
	for _, l := range lines {
		fmt.Println(l)
	}
	p.Close()
}

func consume(bootstrap, plugin, group, bucket string, extra []string) {
	noHelper := os.Getenv("BP_GO_NO_HELPER") == "1"
	cfg := baseConfig(bootstrap, plugin)
	cfg["group.id"] = group
	cfg["bucket.priority.bucket"] = bucket
	cfg["auto.offset.reset"] = "earliest"
	for _, property := range extra {
		name, value, _ := strings.Cut(property, "=")
		cfg[name] = value
	}
	if !noHelper {
		cfg["bucket.priority.rebalance.events.mapped"] = "true"
	}
	c, err := kafka.NewConsumer(&cfg)
	if err != nil {
		fail(err)
	}

	last := "(none yet)"
	printAssignment := func(c *kafka.Consumer) {
		ps, err := c.Assignment()
		if err != nil {
			fmt.Fprintf(os.Stderr, "assignment: %v\n", err)
			return
		}
		var parts []int
		for _, p := range ps {
			if p.Topic != nil && *p.Topic == topic {
				parts = append(parts, int(p.Partition))
			}
		}
		sort.Ints(parts)
		text := make([]string, len(parts))
		for i, p := range parts {
			text[i] = strconv.Itoa(p)
		}
		now := strings.Join(text, ",")
		if now != last {
			fmt.Printf("assigned %s\n", now)
			last = now
		}
	}
	var cb kafka.RebalanceCb
	if !noHelper {
		cb = func(c *kafka.Consumer, ev kafka.Event) error {
			err := bucketpriority.RebalanceCb(c, ev)
			if err != nil {
				fmt.Fprintf(os.Stderr, "rebalance: %v\n", err)
			}
			printAssignment(c)
			return err
		}
	}
	if err := c.Subscribe(topic, cb); err != nil {
		fmt.Printf("error %v\n", err)
		c.Close()
		os.Exit(4)
	}

	eof := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(eof)
	}()
	for {
		select {
		case <-eof:
			c.Close()
			return
		default:
		}
		switch e := c.Poll(100).(type) {
		case *kafka.Message:
			if e.TopicPartition.Error != nil {
				fmt.Fprintf(os.Stderr, "consume error: %v\n", e.TopicPartition.Error)
				continue
			}
			fmt.Printf("record %d %s\n", e.TopicPartition.Partition, keyText(e.Key))
		case kafka.Error:
			fmt.Fprintf(os.Stderr, "kafka error: %v\n", e)
		}
	}
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch {
	case os.Args[1] == "produce" && len(os.Args) == 4:
		produce(os.Args[2], os.Args[3])
	case os.Args[1] == "consume" && len(os.Args) >= 6:
		consume(os.Args[2], os.Args[3], os.Args[4], os.Args[5], os.Args[6:])
	case os.Args[1] == "version" && len(os.Args) == 2:
		_, text := kafka.LibraryVersion()
		fmt.Printf("librdkafka %s\n", text)
	case os.Args[1] == "mock-cluster":
		os.Exit(serveMockCluster(os.Args[2:]))
	default:
		usage()
	}
}
