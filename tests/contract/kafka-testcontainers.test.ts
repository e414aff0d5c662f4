/**
 * The same contract against a real Kafka broker, started by testcontainers, where a Docker engine exists.
 * testcontainers is imported only then, so machines without Docker pay nothing for it.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Kafka } from 'kafkajs';
import { eventTransportContract } from './event-transport.contract.ts';
import { createKafkaHarness, quietKafkaLogs } from './kafka-harness.ts';

const dockerEngine = existsSync('/var/run/docker.sock') || Boolean(process.env.DOCKER_HOST);
/** Override with KAFKA_TEST_IMAGE; 7.x runs ZooKeeper inside the container, 8.x KRaft. */
const image = process.env.KAFKA_TEST_IMAGE ?? 'confluentinc/cp-kafka:7.9.0';

if (!dockerEngine) {
  describe('EventTransport contract: Kafka (real broker, testcontainers)', () => {
    it.skip('needs a Docker engine: no /var/run/docker.sock and DOCKER_HOST is unset (the librdkafka mock cluster runs the same suite in kafka.test.ts)', () => {});
  });
} else {
  describe('Kafka (real broker, testcontainers)', () => {
    let stopContainer: (() => Promise<unknown>) | undefined;
    let kafka: Kafka | undefined;

    beforeAll(async () => {
      const { KafkaContainer } = await import('@testcontainers/kafka');
      const container = await new KafkaContainer(image).start();
      stopContainer = () => container.stop();
      kafka = new Kafka({
        clientId: 'otog-contract',
        brokers: [`${container.getHost()}:${container.getMappedPort(9093)}`],
        logCreator: quietKafkaLogs,
      });
    }, 240_000);
    afterAll(async () => {
      await stopContainer?.();
    });

    // A real broker's default consumer timings are fine; topics are created with 4 partitions, as the mock
    // auto-creates them, so scopes really spread over partitions.
    eventTransportContract('Kafka (real broker, testcontainers)', () => {
      if (!kafka) throw new Error('the Kafka container did not start');
      return createKafkaHarness({
        kafka,
        consumerConfig: { maxWaitTimeInMs: 100, sessionTimeout: 6_000, heartbeatInterval: 500 },
        createTopicsWithPartitions: 4,
      });
    });
  });
}
