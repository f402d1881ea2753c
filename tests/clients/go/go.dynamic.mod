module bpclients

go 1.21

require github.com/confluentinc/confluent-kafka-go/v2 v2.0.2
