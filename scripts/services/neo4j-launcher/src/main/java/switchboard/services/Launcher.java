package switchboard.services;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/**
 * Runs a real Neo4j 5.26 engine in this JVM (via neo4j-harness) with only a Bolt connector on
 * 127.0.0.1, for tests on machines without Docker. Auth is off (drivers use NoAuth).
 *
 * Usage: java ... switchboard.services.Launcher [--no-stdin] [port]
 *   port       Bolt port; else $NEO4J_BOLT_PORT; else 57687.
 *   --no-stdin do not stop when stdin closes (for daemons started with stdin = /dev/null).
 *
 * Prints "READY bolt://127.0.0.1:PORT" once Bolt accepts connections, then blocks until
 * SIGTERM/SIGINT or EOF on stdin, shuts the database down and deletes its data directory.
 */
public final class Launcher {
    public static void main(String[] args) throws Exception {
        boolean watchStdin = true;
        String portArg = System.getenv("NEO4J_BOLT_PORT");
        for (String a : args) {
            if (a.equals("--no-stdin")) {
                watchStdin = false;
            } else {
                portArg = a;
            }
        }
        int port = (portArg == null || portArg.isBlank()) ? 57687 : Integer.parseInt(portArg.trim());

        // Data lives in a fresh temp dir (under -Djava.io.tmpdir) and is removed on exit:
        // every start is an empty database, like a throw-away container.
        Path dataDir = Files.createTempDirectory("switchboard-neo4j-");

        Neo4j db = Neo4jBuilders.newInProcessBuilder(dataDir)
                .withDisabledServer() // no HTTP server, Bolt only
                .withConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .withConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                // bound the off-heap page cache; the default is sized from the machine's RAM
                .withConfig(GraphDatabaseSettings.pagecache_memory, 256L * 1024 * 1024)
                // don't preallocate 256 MiB of transaction log per database (~0.5 GB per start)
                .withConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .withConfig(GraphDatabaseSettings.preallocate_store_files, false)
                // Bolt's netty groups otherwise wait a 5 s quiet period each on shutdown (~10 s stop)
                .withConfig(GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period, 0)
                // Bound the heap that queries may take (the bot runs Cypher a model wrote, and
                // tests run it against this server): one transaction at most 256 MiB
                // (db.memory.transaction.max), all of them together 512 MiB of the 1 GiB heap
                // (dbms.memory.transaction.total.max; the default is 70% of the heap). Over
                // either, the query fails with Neo.TransientError.General.MemoryPoolOutOfMemoryError
                // and the server carries on. Only what Neo4j tracks counts (collect, DISTINCT,
                // ORDER BY, aggregations); values built inside one expression do not, which is
                // why the bot's guard refuses the forms that build huge ones (neo4j/guard.go).
                .withConfig(GraphDatabaseSettings.memory_transaction_max_size, 256L * 1024 * 1024)
                .withConfig(GraphDatabaseSettings.memory_transaction_global_max_size, 512L * 1024 * 1024)
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        // SIGTERM/SIGINT and System.exit all run shutdown hooks: close cleanly, then clean up.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            long t0 = System.nanoTime();
            try {
                db.close();
            } catch (Exception e) {
                System.err.println("neo4j-launcher: close failed: " + e);
            }
            deleteTree(dataDir);
            System.out.println("STOPPED after " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            System.out.flush();
            stopped.countDown();
        }, "neo4j-launcher-shutdown"));

        System.out.println("READY " + db.boltURI());
        System.out.flush();

        if (watchStdin) {
            // A parent that dies or closes our stdin should not leave a database behind.
            Thread t = new Thread(() -> {
                try (InputStream in = System.in) {
                    byte[] buf = new byte[256];
                    while (in.read(buf) >= 0) {
                        // discard input; we only care about EOF
                    }
                } catch (IOException ignored) {
                    // treat a broken stdin like EOF
                }
                System.exit(0);
            }, "neo4j-launcher-stdin");
            t.setDaemon(true);
            t.start();
        }
        stopped.await(); // block until shutdown
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("neo4j-launcher: could not delete " + root + ": " + e);
        }
    }
}
