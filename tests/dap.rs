//! `weft dap`: a scripted Debug Adapter Protocol client drives a session on
//! the seed's N-body case (thread 3): a breakpoint on line 23 with the
//! condition `j == 5`, three steps, the variables of `d` and `acc`, an
//! evaluation; every response is checked, and the values against the
//! interpreter's trace (`Debugger::oracle`).

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use weft::debug::{DebugValue, Debugger, Stop};

struct Client {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    seq: i64,
    /// Events received so far, in order.
    events: Vec<Value>,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_weft"))
            .arg("dap")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("starts weft dap");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Client {
            child,
            input,
            output,
            seq: 0,
            events: Vec::new(),
        }
    }
    fn read(&mut self) -> Value {
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            assert!(
                self.output.read_line(&mut line).expect("reads") > 0,
                "weft dap closed its output"
            );
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let v = line
                .strip_prefix("Content-Length: ")
                .expect("a Content-Length header");
            len = v.parse().expect("a length");
        }
        let mut body = vec![0; len];
        self.output.read_exact(&mut body).expect("reads the body");
        serde_json::from_slice(&body).expect("JSON")
    }
    /// Sends a request; returns its (successful) response's body.
    fn request(&mut self, command: &str, arguments: Value) -> Value {
        let r = self.try_request(command, arguments);
        assert_eq!(r["success"], true, "{command}: {r}");
        r["body"].clone()
    }
    fn try_request(&mut self, command: &str, arguments: Value) -> Value {
        self.seq += 1;
        let msg =
            json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments})
                .to_string();
        write!(self.input, "Content-Length: {}\r\n\r\n{msg}", msg.len()).expect("writes");
        self.input.flush().expect("flushes");
        loop {
            let m = self.read();
            match m["type"].as_str() {
                Some("event") => self.events.push(m),
                Some("response") => {
                    assert_eq!(m["request_seq"], self.seq, "{m}");
                    assert_eq!(m["command"], command, "{m}");
                    return m;
                }
                _ => panic!("unexpected message {m}"),
            }
        }
    }
    /// The next event named `name` (reading more messages if needed).
    fn event(&mut self, name: &str) -> Value {
        loop {
            if let Some(k) = self.events.iter().position(|e| e["event"] == name) {
                return self.events.remove(k);
            }
            let m = self.read();
            assert_eq!(m["type"], "event", "{m}");
            self.events.push(m);
        }
    }
}

/// `name`'s children (`variablesReference`) as (name, value) strings.
fn children(c: &mut Client, var: &Value) -> Vec<(String, String)> {
    let r = var["variablesReference"].as_u64().expect("a reference");
    assert!(r > 0, "{var} has children");
    c.request("variables", json!({"variablesReference": r}))["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap().to_string(),
                v["value"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn parts(v: &DebugValue) -> Vec<(String, String)> {
    match v {
        DebugValue::Aggregate { parts, .. } => parts
            .iter()
            .map(|(l, p)| (l.clone(), p.to_string()))
            .collect(),
        _ => panic!("{v} is not an aggregate"),
    }
}

/// The seed's N-body case's folder and the oracle's stops of thread `tid`
/// (`None` after a counted SKIP when the corpus is missing).
fn nbody_oracle(tid: usize) -> Option<(std::path::PathBuf, Vec<Stop>)> {
    let dir = weft_testkit::corpus::case("seed_nbody_step")?;
    let case = weft_conform::Case::load(&dir).expect("loads");
    let kpath = dir.join("kernel.py");
    let src = std::fs::read_to_string(&kpath).expect("kernel.py");
    let m = Debugger::compile(&kpath.display().to_string(), &src).expect("compiles");
    let want = weft_cli::debug::with_case_args(&case, &m, |k, dim, a| {
        Debugger::oracle(&m, k, dim, a, tid)
    })
    .expect("inputs")
    .expect("oracle");
    Some((dir, want))
}

#[test]
fn a_dap_session_on_nbody() {
    let Some((dir, want)) = nbody_oracle(3) else {
        return;
    };
    let kpath = dir.join("kernel.py");
    let at_bp = want
        .iter()
        .position(|s| s.line == 23 && s.local("j").map(|v| v.to_string()) == Some("5".into()))
        .expect("the oracle reaches line 23 with j == 5");

    let mut c = Client::start();
    let caps = c.request(
        "initialize",
        json!({"clientID": "test", "adapterID": "weft", "linesStartAt1": true}),
    );
    assert_eq!(caps["supportsConditionalBreakpoints"], true);
    assert_eq!(caps["supportsConfigurationDoneRequest"], true);
    c.event("initialized");
    c.request(
        "launch",
        json!({"case": dir.display().to_string(), "tid": 3}),
    );
    let bps = c.request(
        "setBreakpoints",
        json!({"source": {"path": kpath.display().to_string()}, "breakpoints": [{"line": 23, "condition": "j == 5"}]}),
    );
    assert_eq!(bps["breakpoints"][0]["verified"], true, "{bps}");
    assert_eq!(bps["breakpoints"][0]["line"], 23);
    c.request("configurationDone", json!({}));
    let stopped = c.event("stopped");
    assert_eq!(stopped["body"]["reason"], "breakpoint", "{stopped}");
    assert_eq!(stopped["body"]["threadId"], 4);
    let threads = c.request("threads", json!({}));
    assert_eq!(threads["threads"], json!([{"id": 4, "name": "thread 3"}]));

    // Where it stopped, and the variables, against the oracle.
    let check_stop = |c: &mut Client, want: &Stop| {
        let st = c.request("stackTrace", json!({"threadId": 4}));
        let f = &st["stackFrames"][0];
        assert_eq!(f["line"], want.line, "{st}");
        assert_eq!(f["column"], want.col, "{st}");
        assert_eq!(f["name"], want.func.as_str());
        assert_eq!(f["source"]["path"], want.file.as_str());
        let scopes = c.request("scopes", json!({"frameId": f["id"]}));
        let r = scopes["scopes"][0]["variablesReference"].clone();
        let vars = c.request("variables", json!({"variablesReference": r}));
        let vars = vars["variables"].as_array().expect("variables").clone();
        let names: Vec<&str> = vars.iter().map(|v| v["name"].as_str().unwrap()).collect();
        let wnames: Vec<&str> = want.locals.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, wnames);
        for v in &vars {
            let n = v["name"].as_str().unwrap();
            assert_eq!(
                v["value"].as_str().unwrap(),
                want.local(n).unwrap().to_string(),
                "{n}"
            );
        }
        vars
    };
    let vars = check_stop(&mut c, &want[at_bp]);
    for name in ["d", "acc"] {
        let v = vars.iter().find(|v| v["name"] == name).expect(name).clone();
        assert_eq!(v["type"], "vec3<f32>");
        assert_eq!(
            children(&mut c, &v),
            parts(want[at_bp].local(name).unwrap()),
            "{name}"
        );
    }
    let e = c.request("evaluate", json!({"expression": "d * 2.0", "frameId": 0}));
    assert!(
        e["result"].as_str().unwrap().starts_with("vec3<f32>("),
        "{e}"
    );
    let e = c.request("evaluate", json!({"expression": "j", "frameId": 0}));
    assert_eq!(e["result"], "5");
    let bad = c.try_request("evaluate", json!({"expression": "nope", "frameId": 0}));
    assert_eq!(bad["success"], false);

    // Three steps: 23 → 19 → 20 → 21.
    let mut at = at_bp;
    for (cmd, line) in [("next", 19), ("next", 20), ("stepIn", 21)] {
        c.request(cmd, json!({"threadId": 4}));
        let s = c.event("stopped");
        assert_eq!(s["body"]["reason"], "step");
        at += 1;
        assert_eq!(want[at].line, line);
        check_stop(&mut c, &want[at]);
    }
    // Into `wp.dot` and out again; in `wp.dot`, the caller's frame (1)
    // has the variables of the caller's stop that made the call.
    c.request("stepIn", json!({"threadId": 4}));
    c.event("stopped");
    let st = c.request("stackTrace", json!({"threadId": 4}));
    assert_eq!(st["totalFrames"], 2, "{st}");
    let sc = c.request("scopes", json!({"frameId": 1}));
    let r = sc["scopes"][0]["variablesReference"].clone();
    let vars = c.request("variables", json!({"variablesReference": r}));
    let got: Vec<(String, String)> = vars["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap().to_string(),
                v["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let caller: Vec<(String, String)> = want[at]
        .locals
        .iter()
        .map(|(n, v)| (n.clone(), v.to_string()))
        .collect();
    assert_eq!(got, caller, "the caller's variables");
    assert!(!caller.is_empty());
    c.request("stepOut", json!({"threadId": 4}));
    c.event("stopped");
    let st = c.request("stackTrace", json!({"threadId": 4}));
    assert_eq!(st["totalFrames"], 1, "{st}");
    assert_eq!(st["stackFrames"][0]["line"], 22, "{st}");
    // No other stop: the thread runs to its end.
    c.request(
        "setBreakpoints",
        json!({"source": {"path": kpath.display().to_string()}, "breakpoints": []}),
    );
    c.request("continue", json!({"threadId": 4}));
    c.event("terminated");
    c.request("disconnect", json!({}));
    let status = c.child.wait().expect("weft dap exits");
    assert!(status.success());
}

/// `launch` with a kernel file and its inputs (`program`, `kernel`, `dim`,
/// `args` as `case.json` writes them) instead of a case: the N-body
/// kernel's file with the case's arguments stops at the same place with
/// the oracle's values; a `program` without `kernel` is an error that
/// says what is missing.
#[test]
fn launch_takes_a_kernel_file_and_its_inputs() {
    let Some((dir, want)) = nbody_oracle(7) else {
        return;
    };
    let kpath = dir.join("kernel.py");
    let first22 = want.iter().find(|s| s.line == 22).expect("line 22 runs");
    let spec: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("case.json")).unwrap()).unwrap();

    let mut c = Client::start();
    c.request(
        "initialize",
        json!({"clientID": "test", "adapterID": "weft"}),
    );
    c.event("initialized");
    let bad = c.try_request("launch", json!({"program": kpath.display().to_string()}));
    assert_eq!(bad["success"], false);
    assert!(
        bad["message"].as_str().unwrap_or("").contains("`kernel`"),
        "{bad}"
    );
    c.request(
        "launch",
        json!({
            "program": kpath.display().to_string(),
            "kernel": spec["kernel"],
            "dim": spec["dim"],
            "args": spec["args"],
            "tid": 7,
        }),
    );
    c.request(
        "setBreakpoints",
        json!({"source": {"path": kpath.display().to_string()}, "breakpoints": [{"line": 22}]}),
    );
    c.request("configurationDone", json!({}));
    let stopped = c.event("stopped");
    assert_eq!(stopped["body"]["threadId"], 8, "{stopped}");
    for name in ["r2", "j"] {
        let e = c.request("evaluate", json!({"expression": name, "frameId": 0}));
        assert_eq!(
            e["result"].as_str(),
            Some(first22.local(name).unwrap().to_string().as_str()),
            "{name}: {e}"
        );
    }
    c.request("disconnect", json!({}));
    assert!(c.child.wait().expect("weft dap exits").success());
}
