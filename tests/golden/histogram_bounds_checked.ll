; Golden test of the LLVM code generator (unoptimized IR), options: bounds_check
; Regenerate with tools/update_golden.sh. Tack IR:
;   kernel histogram(values: array<f32, 1>, bins: array<i32, 1>) default_float=f32 {
;     parallel for i: i64 in range(0:i64, values.shape[0], 1:i64) {
;       if ((i64(floor((values[i] * f32(bins.shape[0])))) >= 0:i64) and (i64(floor((values[i] * f32(bins.shape[0])))) < bins.shape[0])) {
;         eval atomic_add(bins[i64(floor((values[i] * f32(bins.shape[0]))))], 1:i32)
;       }
;     }
;   }

; Function Attrs: alwaysinline nounwind
define internal void @tack_body(ptr nocapture %values, i64 %values.shape0, ptr nocapture %bins, i64 %bins.shape0, i64 %begin, i64 %end, ptr %status) #0 {
entry:
  %i = alloca i64, align 8
  %0 = icmp sgt i64 %values.shape0, 0
  %1 = sub i64 %values.shape0, 1
  %i.count = select i1 %0, i64 %values.shape0, i64 0
  br label %iter.header

parallel.exit:                                    ; preds = %iter.header
  ret void

iter.header:                                      ; preds = %iter.latch, %entry
  %iter = phi i64 [ %begin, %entry ], [ %iter.next, %iter.latch ]
  %2 = icmp slt i64 %iter, %end
  br i1 %2, label %iter.body, label %parallel.exit

iter.body:                                        ; preds = %iter.header
  store i64 %iter, ptr %i, align 8
  %i1 = load i64, ptr %i, align 8
  %3 = icmp ult i64 %i1, %values.shape0
  br i1 %3, label %inbounds, label %oob, !prof !0

iter.latch:                                       ; preds = %if.end
  %iter.next = add nuw nsw i64 %iter, 1
  br label %iter.header

inbounds:                                         ; preds = %iter.body
  %4 = getelementptr inbounds float, ptr %values, i64 %i1
  %5 = load float, ptr %4, align 1
  br label %access.end

oob:                                              ; preds = %iter.body
  %6 = xor i1 %3, true
  call void @tack_oob(ptr %status, i32 0, i32 0, i64 %i1, i64 %values.shape0)
  br label %access.end

access.end:                                       ; preds = %inbounds, %oob
  %7 = phi float [ %5, %inbounds ], [ 0.000000e+00, %oob ]
  %8 = sitofp i64 %bins.shape0 to float
  %9 = fmul float %7, %8
  %10 = call float @llvm.floor.f32(float %9)
  %11 = call i64 @llvm.fptosi.sat.i64.f32(float %10)
  %12 = icmp sge i64 %11, 0
  br i1 %12, label %and.rhs, label %and.end

and.rhs:                                          ; preds = %access.end
  %i2 = load i64, ptr %i, align 8
  %13 = icmp ult i64 %i2, %values.shape0
  br i1 %13, label %inbounds3, label %oob4, !prof !0

and.end:                                          ; preds = %access.end5, %access.end
  %14 = phi i1 [ false, %access.end ], [ %23, %access.end5 ]
  br i1 %14, label %if.then, label %if.end

inbounds3:                                        ; preds = %and.rhs
  %15 = getelementptr inbounds float, ptr %values, i64 %i2
  %16 = load float, ptr %15, align 1
  br label %access.end5

oob4:                                             ; preds = %and.rhs
  %17 = xor i1 %13, true
  call void @tack_oob(ptr %status, i32 0, i32 0, i64 %i2, i64 %values.shape0)
  br label %access.end5

access.end5:                                      ; preds = %inbounds3, %oob4
  %18 = phi float [ %16, %inbounds3 ], [ 0.000000e+00, %oob4 ]
  %19 = sitofp i64 %bins.shape0 to float
  %20 = fmul float %18, %19
  %21 = call float @llvm.floor.f32(float %20)
  %22 = call i64 @llvm.fptosi.sat.i64.f32(float %21)
  %23 = icmp slt i64 %22, %bins.shape0
  br label %and.end

if.then:                                          ; preds = %and.end
  %i6 = load i64, ptr %i, align 8
  %24 = icmp ult i64 %i6, %values.shape0
  br i1 %24, label %inbounds7, label %oob8, !prof !0

if.end:                                           ; preds = %access.end12, %and.end
  br label %iter.latch

inbounds7:                                        ; preds = %if.then
  %25 = getelementptr inbounds float, ptr %values, i64 %i6
  %26 = load float, ptr %25, align 1
  br label %access.end9

oob8:                                             ; preds = %if.then
  %27 = xor i1 %24, true
  call void @tack_oob(ptr %status, i32 0, i32 0, i64 %i6, i64 %values.shape0)
  br label %access.end9

access.end9:                                      ; preds = %inbounds7, %oob8
  %28 = phi float [ %26, %inbounds7 ], [ 0.000000e+00, %oob8 ]
  %29 = sitofp i64 %bins.shape0 to float
  %30 = fmul float %28, %29
  %31 = call float @llvm.floor.f32(float %30)
  %32 = call i64 @llvm.fptosi.sat.i64.f32(float %31)
  %33 = icmp ult i64 %32, %bins.shape0
  br i1 %33, label %inbounds10, label %oob11, !prof !0

inbounds10:                                       ; preds = %access.end9
  %34 = getelementptr inbounds i32, ptr %bins, i64 %32
  %35 = atomicrmw add ptr %34, i32 1 monotonic, align 4
  br label %access.end12

oob11:                                            ; preds = %access.end9
  %36 = xor i1 %33, true
  call void @tack_oob(ptr %status, i32 1, i32 0, i64 %32, i64 %bins.shape0)
  br label %access.end12

access.end12:                                     ; preds = %inbounds10, %oob11
  %37 = phi i32 [ %35, %inbounds10 ], [ 0, %oob11 ]
  br label %if.end
}

; Function Attrs: cold noinline nounwind
define internal void @tack_oob(ptr %0, i32 %1, i32 %2, i64 %3, i64 %4) #1 {
entry:
  %5 = icmp eq ptr %0, null
  br i1 %5, label %done, label %try

try:                                              ; preds = %entry
  %6 = cmpxchg ptr %0, i32 0, i32 1 monotonic monotonic, align 4
  %7 = extractvalue { i32, i1 } %6, 1
  br i1 %7, label %fill, label %done

fill:                                             ; preds = %try
  %8 = getelementptr inbounds i8, ptr %0, i64 4
  store i32 %1, ptr %8, align 4
  %9 = getelementptr inbounds i8, ptr %0, i64 8
  store i32 %2, ptr %9, align 4
  %10 = getelementptr inbounds i8, ptr %0, i64 16
  store i64 %3, ptr %10, align 8
  %11 = getelementptr inbounds i8, ptr %0, i64 24
  store i64 %4, ptr %11, align 8
  br label %done

done:                                             ; preds = %fill, %try, %entry
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.floor.f32(float) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i64 @llvm.fptosi.sat.i64.f32(float) #2

; Function Attrs: alwaysinline nounwind
define internal i64 @tack_count(ptr nocapture %values, i64 %values.shape0, ptr nocapture %bins, i64 %bins.shape0) #0 {
entry:
  %0 = icmp sgt i64 %values.shape0, 0
  %1 = sub i64 %values.shape0, 1
  %i.count = select i1 %0, i64 %values.shape0, i64 0
  ret i64 %i.count
}

; Function Attrs: nounwind
define void @tack_chunk_histogram(ptr %args, i64 %begin, i64 %end, ptr %status) #3 {
entry:
  %values = load ptr, ptr %args, align 8
  %0 = getelementptr inbounds i64, ptr %args, i64 1
  %1 = load i64, ptr %0, align 8
  %2 = getelementptr inbounds i64, ptr %args, i64 2
  %bins = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds i64, ptr %args, i64 3
  %4 = load i64, ptr %3, align 8
  call void @tack_body(ptr %values, i64 %1, ptr %bins, i64 %4, i64 %begin, i64 %end, ptr %status)
  ret void
}

; Function Attrs: nounwind
define i64 @tack_extent_histogram(ptr %args) #3 {
entry:
  %values = load ptr, ptr %args, align 8
  %0 = getelementptr inbounds i64, ptr %args, i64 1
  %1 = load i64, ptr %0, align 8
  %2 = getelementptr inbounds i64, ptr %args, i64 2
  %bins = load ptr, ptr %2, align 8
  %3 = getelementptr inbounds i64, ptr %args, i64 3
  %4 = load i64, ptr %3, align 8
  %5 = call i64 @tack_count(ptr %values, i64 %1, ptr %bins, i64 %4)
  ret i64 %5
}

attributes #0 = { alwaysinline nounwind "target-cpu"="<host>" "target-features"="<host>" }
attributes #1 = { cold noinline nounwind "target-cpu"="<host>" "target-features"="<host>" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nounwind "target-cpu"="<host>" "target-features"="<host>" }

!0 = !{!"branch_weights", i32 1048575, i32 1}
