/*
 * A Kafka-protocol broker for tests: librdkafka's mock cluster on loopback.
 *
 *   kmock <brokers> [topic:partitions ...]
 *
 * Prints the bootstrap servers on the first line of stdout, then reads commands from stdin, one per line:
 *   topic <name> <partitions>      create a topic (replies "ok" or "err <reason>")
 *   down <broker-id> / up <broker-id>
 *   quit                           (or end of input) stops the cluster and exits
 * Exiting on end of input means the cluster dies with whatever spawned it.
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int create_topic(rd_kafka_mock_cluster_t *cluster, const char *name, int partitions, int replication) {
  rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(cluster, name, partitions, replication);
  if (err) {
    printf("err %s\n", rd_kafka_err2str(err));
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  char errstr[512];
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr);
  rd_kafka_t *handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!handle) {
    fprintf(stderr, "kmock: %s\n", errstr);
    return 1;
  }
  int brokers = argc > 1 ? atoi(argv[1]) : 1;
  if (brokers < 1) brokers = 1;
  int replication = brokers < 3 ? brokers : 3;
  rd_kafka_mock_cluster_t *cluster = rd_kafka_mock_cluster_new(handle, brokers);
  if (!cluster) {
    fprintf(stderr, "kmock: could not create the mock cluster\n");
    return 1;
  }
  for (int i = 2; i < argc; i++) {
    char name[256];
    int partitions = 1;
    if (sscanf(argv[i], "%255[^:]:%d", name, &partitions) < 1 || create_topic(cluster, name, partitions, replication)) {
      fprintf(stderr, "kmock: bad topic argument %s\n", argv[i]);
      return 1;
    }
  }
  printf("%s\n", rd_kafka_mock_cluster_bootstraps(cluster));
  fflush(stdout);

  char line[1024];
  while (fgets(line, sizeof line, stdin)) {
    char command[32], argument[256];
    int number = 0;
    int got = sscanf(line, "%31s %255s %d", command, argument, &number);
    if (got < 1) continue;
    if (!strcmp(command, "quit")) break;
    if (!strcmp(command, "topic") && got == 3) {
      if (!create_topic(cluster, argument, number, replication)) printf("ok\n");
    } else if (!strcmp(command, "down") && got >= 2) {
      printf("%s\n", rd_kafka_err2str(rd_kafka_mock_broker_set_down(cluster, atoi(argument))));
    } else if (!strcmp(command, "up") && got >= 2) {
      printf("%s\n", rd_kafka_err2str(rd_kafka_mock_broker_set_up(cluster, atoi(argument))));
    } else {
      printf("err unknown command\n");
    }
    fflush(stdout);
  }
  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(handle);
  return 0;
}
