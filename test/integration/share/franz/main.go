// A share consumer on franz-go (kgo, unmodified) for the share-group tests: sets the group's
// GROUP configs (IncrementalAlterConfigs, as kafka-configs.sh does), then runs `-consumers`
// share consumers that acknowledge each record as `-behaviour` says, until the group has
// accepted `-expect` distinct values (0: until `-idle` passes without a record once one came).
// Every delivery is printed as a JSON line; the tests judge them.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var out = json.NewEncoder(os.Stdout)
var outMu sync.Mutex

func emit(v map[string]any) {
	outMu.Lock()
	defer outMu.Unlock()
	if err := out.Encode(v); err != nil {
		panic(err)
	}
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

// setGroupConfigs applies key=value GROUP configs to the group.
func setGroupConfigs(brokers []string, group string, settings []string) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		fail("client: %v", err)
	}
	defer cl.Close()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = group
	for _, s := range settings {
		kv := strings.SplitN(s, "=", 2)
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name = kv[0]
		c.Value = kmsg.StringPtr(kv[1])
		c.Op = kmsg.IncrementalAlterConfigOpSet
		res.Configs = append(res.Configs, c)
	}
	req.Resources = append(req.Resources, res)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		fail("IncrementalAlterConfigs: %v", err)
	}
	for _, r := range resp.Resources {
		if r.ErrorCode != 0 {
			fail("IncrementalAlterConfigs %s: error %d %v", r.ResourceName, r.ErrorCode, r.ErrorMessage)
		}
	}
}

func decide(behaviour string, r *kgo.Record) kgo.AckStatus {
	switch behaviour {
	case "accept":
		return kgo.AckAccept
	case "release-once":
		if r.DeliveryCount() == 1 {
			return kgo.AckRelease
		}
		return kgo.AckAccept
	case "reject-odd":
		if (r.Value[len(r.Value)-1]-'0')%2 == 1 {
			return kgo.AckReject
		}
		return kgo.AckAccept
	}
	fail("unknown behaviour %s", behaviour)
	return 0
}

var ackNames = map[kgo.AckStatus]string{kgo.AckAccept: "ACCEPT", kgo.AckRelease: "RELEASE", kgo.AckReject: "REJECT"}

func main() {
	brokers := flag.String("brokers", "", "bootstrap brokers, comma separated")
	topic := flag.String("topic", "", "topic to consume")
	group := flag.String("group", "", "share group")
	consumers := flag.Int("consumers", 1, "share consumers in this process")
	behaviour := flag.String("behaviour", "accept", "accept | release-once | reject-odd")
	expect := flag.Int("expect", 0, "distinct accepted values to wait for (0: until idle)")
	idle := flag.Duration("idle", 4*time.Second, "stop after this long without a record, once one came (expect 0)")
	configs := flag.String("group-configs", "", "GROUP configs to set first, key=value comma separated")
	flag.Parse()
	seeds := strings.Split(*brokers, ",")
	if *configs != "" {
		setGroupConfigs(seeds, *group, strings.Split(*configs, ","))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var mu sync.Mutex
	accepted := map[string]bool{}
	lastRecord := time.Time{}
	done := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if *expect > 0 {
			return len(accepted) >= *expect
		}
		return !lastRecord.IsZero() && time.Since(lastRecord) > *idle
	}

	var wg sync.WaitGroup
	for i := 0; i < *consumers; i++ {
		name := fmt.Sprintf("f%d", i)
		cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ShareGroup(*group), kgo.ConsumeTopics(*topic), kgo.ClientID(name))
		if err != nil {
			fail("client: %v", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cl.Close()
			for !done() && ctx.Err() == nil {
				pollCtx, pollCancel := context.WithTimeout(ctx, 500*time.Millisecond)
				fetches := cl.PollFetches(pollCtx)
				pollCancel()
				n := 0
				fetches.EachRecord(func(r *kgo.Record) {
					ack := decide(*behaviour, r)
					r.Ack(ack)
					n++
					emit(map[string]any{"type": "record", "consumer": name, "partition": r.Partition, "offset": r.Offset, "value": string(r.Value), "deliveryCount": r.DeliveryCount(), "ack": ackNames[ack]})
					if ack == kgo.AckAccept {
						mu.Lock()
						accepted[string(r.Value)] = true
						mu.Unlock()
					}
				})
				if n > 0 {
					mu.Lock()
					lastRecord = time.Now()
					mu.Unlock()
					if err := cl.FlushAcks(ctx); err != nil {
						emit(map[string]any{"type": "ack-error", "consumer": name, "error": err.Error()})
					}
				}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		fail("timed out with %d accepted", len(accepted))
	}
	emit(map[string]any{"type": "done", "accepted": len(accepted)})
}
