module tb;
    reg         odd;
    reg  [15:0] data;
    reg  [16:0] rx;
    wire        pbit, rx_err;
    reg         exp_pbit, exp_err;
    integer errors, samples, i, k, ones, seed;

    parity16 dut (.odd(odd), .data(data), .pbit(pbit), .rx(rx), .rx_err(rx_err));

    initial begin
        errors = 0; samples = 0; seed = 99;
        for (i = 0; i < 800; i = i + 1) begin
            odd = (i < 400) ? i[0] : $random(seed);
            data = $random(seed);
            rx = $random(seed);
            if (i % 5 == 0) data = 16'h0001 << (i % 16);
            if (i % 11 == 0) rx = 17'h0;
            #1;
            ones = 0;
            for (k = 0; k < 16; k = k + 1) ones = ones + data[k];
            exp_pbit = (ones % 2 == 1) ? !odd : odd;
            ones = 0;
            for (k = 0; k < 17; k = k + 1) ones = ones + rx[k];
            exp_err = odd ? (ones % 2 == 0) : (ones % 2 == 1);
            samples = samples + 1;
            if (pbit !== exp_pbit) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=pbit expected=%h got=%h odd=%b data=%h", $time, exp_pbit, pbit, odd, data);
            end
            if (rx_err !== exp_err) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=rx_err expected=%h got=%h odd=%b rx=%h", $time, exp_err, rx_err, odd, rx);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
