// SPDX-License-Identifier: MIT
// A JVM workload with an exact number of collections:
//   java GcWork N        calls fire() (one System.gc()) N times, exits
//   java GcWork N wait   says "ready PID", waits for a line, fires N
//                        times, says "done", waits for end of input
//   java GcWork N slow   fires N times, 20 ms apart (for the console)
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class GcWork {
    static void fire() {
        System.gc();
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        boolean wait = args.length > 1 && args[1].equals("wait");
        boolean slow = args.length > 1 && args[1].equals("slow");
        BufferedReader in =
            new BufferedReader(new InputStreamReader(System.in));

        if (wait) {
            System.out.println("ready " + ProcessHandle.current().pid());
            in.readLine();
        }
        for (int i = 0; i < n; i++) {
            fire();
            if (slow)
                Thread.sleep(20);
        }
        if (wait) {
            System.out.println("done");
            in.readLine();
        }
    }
}
