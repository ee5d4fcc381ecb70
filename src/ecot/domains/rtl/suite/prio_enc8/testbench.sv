module tb;
    reg  [7:0] req;
    wire [2:0] idx;
    wire       valid;
    reg  [2:0] exp_idx;
    reg        exp_valid;
    integer errors, samples, i, k, seed;

    prio_enc8 dut (.req(req), .idx(idx), .valid(valid));

    initial begin
        errors = 0; samples = 0; seed = 5;
        for (i = 0; i < 256 + 256; i = i + 1) begin
            req = (i < 256) ? i : $random(seed);
            #1;
            exp_idx = 3'd0;
            for (k = 0; k < 8; k = k + 1)
                if (req[k]) exp_idx = k;
            exp_valid = (req != 8'h00);
            samples = samples + 1;
            if (idx !== exp_idx) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=idx expected=%h got=%h req=%b", $time, exp_idx, idx, req);
            end
            if (valid !== exp_valid) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=valid expected=%h got=%h req=%b", $time, exp_valid, valid, req);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
