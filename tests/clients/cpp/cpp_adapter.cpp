// cpp_adapter.cpp - client matrix adapter for librdkafka++ (the C++ API),
// configured the way C++ users do: RdKafka::Conf::set(), with its own
// RdKafka::RebalanceCb that prints the assignment and assigns the list it
// is given. Protocol: see tests/clients/client_matrix.py.
//
//   cpp_adapter produce BOOTSTRAP PLUGIN
//   cpp_adapter consume BOOTSTRAP PLUGIN GROUP BUCKET [NAME=VALUE ...]
//   cpp_adapter version
//
// NAME=VALUE: more properties set() on the consumer's configuration after
// the others (group.protocol=consumer). version: 'librdkafka X.Y.Z', the
// library it runs on (RdKafka::version_str()).
// A configuration property the client refuses, or a client that cannot be
// created, gives 'error TEXT' (librdkafka's own error string) and exit 3.
#include <librdkafka/rdkafkacpp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

const std::string kTopic = "orders";

void out(const std::string &line) {
        std::fputs((line + "\n").c_str(), stdout);
        std::fflush(stdout);
}

[[noreturn]] void creation_error(const std::string &text) {
        out("error " + text);
        std::exit(3);
}

void set(RdKafka::Conf *conf, const std::string &name,
         const std::string &value) {
        std::string errstr;
        if (conf->set(name, value, errstr) != RdKafka::Conf::CONF_OK)
                creation_error(errstr);
}

RdKafka::Conf *base_conf(const std::string &bootstrap,
                         const std::string &plugin) {
        RdKafka::Conf *conf = RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL);
        set(conf, "bootstrap.servers", bootstrap);
        set(conf, "plugin.library.paths", plugin);
        set(conf, "bucket.priority.topic", kTopic);
        set(conf, "bucket.priority.buckets", "Platinum, Gold");
        set(conf, "bucket.priority.allocation", "70%, 30%");
        return conf;
}

// Delivery reports: msg_opaque is the index of the key in the input.
class Reports : public RdKafka::DeliveryReportCb {
    public:
        explicit Reports(const std::vector<std::string> &keys)
            : keys_(keys), reported_(keys.size(), false) {}
        void dr_cb(RdKafka::Message &message) override {
                size_t index = reinterpret_cast<size_t>(message.msg_opaque());
                reported_[index] = true;
                if (message.err() != RdKafka::ERR_NO_ERROR)
                        out("failed " + keys_[index] + " " + message.errstr());
                else
                        out("delivered " + keys_[index] + " " +
                            std::to_string(message.partition()));
        }
        // produce() refused the record: no delivery report will come.
        void refused(size_t index, const std::string &text) {
                reported_[index] = true;
                out("failed " + keys_[index] + " " + text);
        }
        bool reported(size_t index) const { return reported_[index]; }

    private:
        const std::vector<std::string> &keys_;
        std::vector<bool> reported_;
};

int produce(const std::string &bootstrap, const std::string &plugin) {
        std::vector<std::string> keys;
        for (std::string line; std::getline(std::cin, line);)
                keys.push_back(line);
        Reports reports(keys);
        std::unique_ptr<RdKafka::Conf> conf(base_conf(bootstrap, plugin));
        std::string errstr;
        if (conf->set("dr_cb", &reports, errstr) != RdKafka::Conf::CONF_OK)
                creation_error(errstr);
        std::unique_ptr<RdKafka::Producer> producer(
            RdKafka::Producer::create(conf.get(), errstr));
        if (!producer)
                creation_error(errstr);
        conf.reset(); /* C++ programs drop the configuration once used */

        for (size_t i = 0; i < keys.size(); i++) {
                const bool null_key = keys[i] == "-";
                char value[] = "v";
                for (;;) {
                        RdKafka::ErrorCode err = producer->produce(
                            kTopic, RdKafka::Topic::PARTITION_UA,
                            RdKafka::Producer::RK_MSG_COPY, value, 1,
                            null_key ? nullptr : keys[i].data(),
                            null_key ? 0 : keys[i].size(), 0,
                            reinterpret_cast<void *>(i));
                        if (err == RdKafka::ERR__QUEUE_FULL) {
                                producer->poll(100);
                                continue;
                        }
                        if (err != RdKafka::ERR_NO_ERROR)
                                reports.refused(i, RdKafka::err2str(err));
                        break;
                }
                producer->poll(0);
        }
        producer->flush(30000);
        for (size_t i = 0; i < keys.size(); i++)
                if (!reports.reported(i))
                        out("failed " + keys[i] +
                            " no delivery report within 30 s");
        return 0;
}

class Rebalance : public RdKafka::RebalanceCb {
    public:
        void rebalance_cb(RdKafka::KafkaConsumer *consumer,
                          RdKafka::ErrorCode err,
                          std::vector<RdKafka::TopicPartition *> &partitions)
            override {
                const bool cooperative =
                    consumer->rebalance_protocol() == "COOPERATIVE";
                std::set<int> given;
                for (const RdKafka::TopicPartition *tp : partitions)
                        if (tp->topic() == kTopic)
                                given.insert(tp->partition());
                if (err == RdKafka::ERR__ASSIGN_PARTITIONS) {
                        if (cooperative) {
                                current_.insert(given.begin(), given.end());
                                delete consumer->incremental_assign(partitions);
                        } else {
                                current_ = given;
                                consumer->assign(partitions);
                        }
                } else {
                        if (cooperative) {
                                for (int p : given)
                                        current_.erase(p);
                                delete consumer->incremental_unassign(partitions);
                        } else {
                                current_.clear();
                                consumer->unassign();
                        }
                }
                show();
        }

    private:
        void show() {
                if (shown_ && current_ == last_)
                        return;
                std::string line = "assigned";
                const char *sep = " ";
                for (int p : current_) {
                        line += sep + std::to_string(p);
                        sep = ",";
                }
                out(line);
                shown_ = true;
                last_ = current_;
        }
        std::set<int> current_, last_;
        bool shown_ = false;
};

int consume(const std::string &bootstrap, const std::string &plugin,
            const std::string &group, const std::string &bucket,
            const std::vector<std::string> &extra) {
        Rebalance rebalance;
        std::unique_ptr<RdKafka::Conf> conf(base_conf(bootstrap, plugin));
        set(conf.get(), "group.id", group);
        set(conf.get(), "bucket.priority.bucket", bucket);
        set(conf.get(), "auto.offset.reset", "earliest");
        for (const std::string &property : extra) {
                const size_t eq = property.find('=');
                set(conf.get(), property.substr(0, eq),
                    eq == std::string::npos ? "" : property.substr(eq + 1));
        }
        std::string errstr;
        if (conf->set("rebalance_cb", &rebalance, errstr) !=
            RdKafka::Conf::CONF_OK)
                creation_error(errstr);
        std::unique_ptr<RdKafka::KafkaConsumer> consumer(
            RdKafka::KafkaConsumer::create(conf.get(), errstr));
        if (!consumer)
                creation_error(errstr);
        conf.reset(); /* C++ programs drop the configuration once used */

        std::atomic<bool> stdin_closed{false};
        std::thread reader([&stdin_closed] {
                for (std::string line; std::getline(std::cin, line);)
                        ;
                stdin_closed = true;
        });
        RdKafka::ErrorCode err = consumer->subscribe({kTopic});
        if (err != RdKafka::ERR_NO_ERROR)
                std::cerr << "subscribe: " << RdKafka::err2str(err) << "\n";
        while (!stdin_closed) {
                std::unique_ptr<RdKafka::Message> msg(consumer->consume(200));
                if (msg->err() == RdKafka::ERR__TIMED_OUT ||
                    msg->err() == RdKafka::ERR__PARTITION_EOF)
                        continue;
                if (msg->err() != RdKafka::ERR_NO_ERROR) {
                        std::cerr << "consumer: " << msg->errstr() << "\n";
                        continue;
                }
                const std::string *key = msg->key();
                out("record " + std::to_string(msg->partition()) + " " +
                    (key ? *key : std::string("-")));
        }
        reader.join();
        consumer->close();
        consumer.reset();
        RdKafka::wait_destroyed(5000);
        return 0;
}

}  // namespace

int main(int argc, char **argv) {
        std::vector<std::string> args(argv + 1, argv + argc);
        if (args.size() == 3 && args[0] == "produce")
                return produce(args[1], args[2]);
        if (args.size() >= 5 && args[0] == "consume")
                return consume(args[1], args[2], args[3], args[4],
                               {args.begin() + 5, args.end()});
        if (args.size() == 1 && args[0] == "version") {
                out("librdkafka " + RdKafka::version_str());
                return 0;
        }
        std::cerr << "usage: cpp_adapter produce BOOTSTRAP PLUGIN\n"
                     "       cpp_adapter consume BOOTSTRAP PLUGIN GROUP BUCKET "
                     "[NAME=VALUE ...]\n"
                     "       cpp_adapter version\n";
        return 2;
}
