// The franz-go side of the share-group benchmark (bench/e2e/share.ts): sets the group's
// share.auto.offset.reset=earliest, then runs -consumers share consumers (kgo, unmodified) in one
// process, each accepting every record it gets, until -records records were delivered and every
// consumer has flushed its acknowledgements and closed. Prints one JSON line, as BenchTool does.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func setEarliest(seeds []string, group string) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...))
	if err != nil {
		fail("client: %v", err)
	}
	defer cl.Close()
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	res := kmsg.NewIncrementalAlterConfigsRequestResource()
	res.ResourceType = kmsg.ConfigResourceTypeGroupConfig
	res.ResourceName = group
	c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	c.Name = "share.auto.offset.reset"
	c.Value = kmsg.StringPtr("earliest")
	c.Op = kmsg.IncrementalAlterConfigOpSet
	res.Configs = append(res.Configs, c)
	req.Resources = append(req.Resources, res)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		fail("IncrementalAlterConfigs: %v", err)
	}
	for _, r := range resp.Resources {
		if r.ErrorCode != 0 {
			fail("IncrementalAlterConfigs %s: error %d", r.ResourceName, r.ErrorCode)
		}
	}
}

func main() {
	brokers := flag.String("brokers", "", "bootstrap brokers, comma separated")
	topic := flag.String("topic", "", "topic to consume")
	group := flag.String("group", "", "share group")
	consumers := flag.Int("consumers", 1, "share consumers in this process")
	target := flag.Int64("records", 0, "records to consume")
	flag.Parse()
	seeds := strings.Split(*brokers, ",")
	setEarliest(seeds, *group)

	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Second)
	defer cancel()
	var records, bytes atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < *consumers; i++ {
		cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ShareGroup(*group), kgo.ConsumeTopics(*topic), kgo.ClientID(fmt.Sprintf("%s-%d", *group, i)))
		if err != nil {
			fail("client: %v", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cl.Close()
			for records.Load() < *target && ctx.Err() == nil {
				pollCtx, pollCancel := context.WithTimeout(ctx, 500*time.Millisecond)
				fetches := cl.PollFetches(pollCtx)
				pollCancel()
				var n, b int64
				fetches.EachRecord(func(r *kgo.Record) {
					r.Ack(kgo.AckAccept)
					n++
					b += int64(len(r.Key) + len(r.Value))
				})
				records.Add(n)
				bytes.Add(b)
			}
			if err := cl.FlushAcks(context.Background()); err != nil {
				fail("FlushAcks: %v", err)
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		fail("timed out at %d records", records.Load())
	}
	seconds := time.Since(start).Seconds()
	fmt.Printf("{\"records\":%d,\"bytes\":%d,\"seconds\":%.3f}\n", records.Load(), bytes.Load(), seconds)
}
