; Golden test: tests/golden/loops.py, llvm
; Regenerate with tools/update_golden.sh. Tack IR:
;   kernel loops(out: array<i64, 1>) default_float=f32 {
;     parallel for i: i64 in range(0:i64, out.shape[0], 1:i64) {
;       let acc: i64 = 0:i64
;       for k: i64 in range(i, 0:i64, -1:i64) {
;         if (k == 3:i64) {
;           continue
;         }
;         if (acc > 100:i64) {
;           break
;         }
;         acc = (acc + k)
;       }
;       out[i] = acc
;     }
;   }

; Function Attrs: alwaysinline nounwind
define internal void @tack_body(ptr nocapture %out, i64 %out.shape0, i64 %begin, i64 %end, ptr %status) #0 {
entry:
  %k = alloca i64, align 8
  %acc = alloca i64, align 8
  %i = alloca i64, align 8
  %0 = icmp sgt i64 %out.shape0, 0
  %1 = sub i64 %out.shape0, 0
  %i.count = select i1 %0, i64 %1, i64 0
  br label %iter.header

parallel.exit:                                    ; preds = %iter.header
  ret void

iter.header:                                      ; preds = %iter.latch, %entry
  %iter = phi i64 [ %begin, %entry ], [ %iter.next, %iter.latch ]
  %2 = icmp slt i64 %iter, %end
  br i1 %2, label %iter.body, label %parallel.exit

iter.body:                                        ; preds = %iter.header
  store i64 %iter, ptr %i, align 8
  store i64 0, ptr %acc, align 8
  %i1 = load i64, ptr %i, align 8
  %3 = icmp sgt i64 %i1, 0
  %4 = sub i64 %i1, 0
  %5 = select i1 %3, i64 %4, i64 0
  br label %for.header

iter.latch:                                       ; preds = %for.end
  %iter.next = add nuw nsw i64 %iter, 1
  br label %iter.header

for.header:                                       ; preds = %for.latch, %iter.body
  %k.trip = phi i64 [ 0, %iter.body ], [ %k.next, %for.latch ]
  %6 = icmp ult i64 %k.trip, %5
  br i1 %6, label %for.body, label %for.end

for.body:                                         ; preds = %for.header
  %7 = mul i64 %k.trip, -1
  %8 = add i64 %i1, %7
  store i64 %8, ptr %k, align 8
  %k2 = load i64, ptr %k, align 8
  %9 = icmp eq i64 %k2, 3
  br i1 %9, label %if.then, label %if.end

for.latch:                                        ; preds = %if.end5, %if.then
  %k.next = add nuw i64 %k.trip, 1
  br label %for.header

for.end:                                          ; preds = %if.then4, %for.header
  %acc9 = load i64, ptr %acc, align 8
  %i10 = load i64, ptr %i, align 8
  %10 = getelementptr inbounds i64, ptr %out, i64 %i10
  store i64 %acc9, ptr %10, align 1
  br label %iter.latch

if.then:                                          ; preds = %for.body
  br label %for.latch

if.end:                                           ; preds = %unreachable, %for.body
  %acc3 = load i64, ptr %acc, align 8
  %11 = icmp sgt i64 %acc3, 100
  br i1 %11, label %if.then4, label %if.end5

unreachable:                                      ; No predecessors!
  br label %if.end

if.then4:                                         ; preds = %if.end
  br label %for.end

if.end5:                                          ; preds = %unreachable6, %if.end
  %acc7 = load i64, ptr %acc, align 8
  %k8 = load i64, ptr %k, align 8
  %12 = add i64 %acc7, %k8
  store i64 %12, ptr %acc, align 8
  br label %for.latch

unreachable6:                                     ; No predecessors!
  br label %if.end5
}

; Function Attrs: alwaysinline nounwind
define internal i64 @tack_count(ptr nocapture %out, i64 %out.shape0) #0 {
entry:
  %0 = icmp sgt i64 %out.shape0, 0
  %1 = sub i64 %out.shape0, 0
  %i.count = select i1 %0, i64 %1, i64 0
  %total = mul i64 1, %i.count
  ret i64 %total
}

; Function Attrs: nounwind
define void @tack_chunk_loops(ptr %args, i64 %begin, i64 %end, ptr %status) #1 {
entry:
  %0 = getelementptr inbounds i64, ptr %args, i64 0
  %out = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds i64, ptr %args, i64 1
  %2 = load i64, ptr %1, align 8
  call void @tack_body(ptr %out, i64 %2, i64 %begin, i64 %end, ptr %status)
  ret void
}

; Function Attrs: nounwind
define i64 @tack_extent_loops(ptr %args) #1 {
entry:
  %0 = getelementptr inbounds i64, ptr %args, i64 0
  %out = load ptr, ptr %0, align 8
  %1 = getelementptr inbounds i64, ptr %args, i64 1
  %2 = load i64, ptr %1, align 8
  %3 = call i64 @tack_count(ptr %out, i64 %2)
  ret i64 %3
}

attributes #0 = { alwaysinline nounwind "target-cpu"="<host>" "target-features"="<host>" }
attributes #1 = { nounwind "target-cpu"="<host>" "target-features"="<host>" }
