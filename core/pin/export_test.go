package pin_test

import "encoding/json"

type jsonRaw = json.RawMessage
