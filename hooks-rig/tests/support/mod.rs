//! What the tests share: the scripted model and counting tools.

pub(crate) mod server;

use std::sync::{Arc, Mutex, PoisonError};

use rig_core::tool::PortableTool;
use serde_json::{Value, json};

/// A tool that records the arguments of every call and answers with them.
#[derive(Clone, Default)]
pub(crate) struct Recorder {
    calls: Arc<Mutex<Vec<Value>>>,
}

impl Recorder {
    pub(crate) fn calls(&self) -> Vec<Value> {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

macro_rules! recording_tool {
    ($tool:ident, $name:literal) => {
        #[derive(Clone, Default)]
        pub(crate) struct $tool(pub(crate) Recorder);

        impl PortableTool for $tool {
            const NAME: &'static str = $name;
            type Args = Value;
            type Output = Value;
            type Error = std::io::Error;

            fn description(&self) -> String {
                concat!("The ", $name, " tool.").to_owned()
            }

            fn parameters(&self) -> Value {
                json!({"type": "object", "properties": {"path": {"type": "string"}}})
            }

            async fn call(&self, args: Value) -> Result<Value, std::io::Error> {
                self.0
                    .calls
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(args.clone());
                Ok(json!({"tool": $name, "args": args, "secret": "s3cr3t"}))
            }
        }
    };
}

recording_tool!(ReadFile, "read_file");
recording_tool!(DeleteFile, "delete_file");
