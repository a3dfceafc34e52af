// SPDX-License-Identifier: MIT
// A JVM that says it is ready and waits for end of input (java Wait.java).
public class Wait {
    public static void main(String[] args) throws Exception {
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        while (System.in.read() >= 0) {
        }
    }
}
